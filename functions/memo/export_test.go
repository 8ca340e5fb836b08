package memo

// Waiting is how many callers of key wait for the call after the one in
// flight: how a test knows callers have arrived before it lets the call in
// flight end.
func (n *Next[V]) Waiting(key string) int {
	return n.callers(key, func(k *nextKey[V]) *nextCall[V] { return k.waiting })
}

// Sharing is how many callers share the call in flight for key.
func (n *Next[V]) Sharing(key string) int {
	return n.callers(key, func(k *nextKey[V]) *nextCall[V] { return k.inFlight })
}

func (n *Next[V]) callers(key string, call func(*nextKey[V]) *nextCall[V]) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if k := n.keys[key]; k != nil && call(k) != nil {
		return call(k).callers
	}
	return 0
}
