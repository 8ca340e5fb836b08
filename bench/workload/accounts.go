package workload

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Account is a user signed up at the Auth emulator: its uid and ID token.
type Account struct {
	UID, Token string
}

// SignUpAll signs up n anonymous users at the Auth emulator at authHost, at
// most concurrency at a time, each sign-up's requests bounded by timeout.
// It returns the first error, if any, beside the accounts it made.
func SignUpAll(ctx context.Context, authHost string, n, concurrency int, timeout time.Duration) ([]Account, error) {
	hc := &http.Client{Timeout: timeout}
	accounts := make([]Account, n)
	sem := make(chan struct{}, max(concurrency, 1))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for i := range accounts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			uid, tok, err := SignUp(ctx, hc, authHost)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			accounts[i] = Account{UID: uid, Token: tok}
		}()
	}
	wg.Wait()
	return accounts, firstErr
}

// Outcome names a request's result for outcome counts: "200",
// "503 unavailable", "timeout" or "transport".
func (r Result) Outcome() string {
	switch {
	case r.Err != nil:
		var ne net.Error
		if errors.Is(r.Err, context.DeadlineExceeded) || (errors.As(r.Err, &ne) && ne.Timeout()) {
			return "timeout"
		}
		return "transport"
	case r.Code != "":
		return fmt.Sprintf("%d %s", r.Status, r.Code)
	default:
		return fmt.Sprint(r.Status)
	}
}
