package memo

// Waiting is how many callers of key wait for the call after the one in
// flight: how a test knows callers have arrived before it lets the call in
// flight end.
func (n *Next[V]) Waiting(key string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if k := n.keys[key]; k != nil && k.waiting != nil {
		return k.waiting.callers
	}
	return 0
}

// Sharing is how many callers share the call in flight for key.
func (n *Next[V]) Sharing(key string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if k := n.keys[key]; k != nil && k.inFlight != nil {
		return k.inFlight.callers
	}
	return 0
}
