package bench

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/firestore"

	client "github.com/roomlease/roomlease/clients/go"
	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"

	"github.com/roomlease/roomlease/bench/harness"
	"github.com/roomlease/roomlease/bench/workload"
)

// abuseAttempts is the attack of issue 11: one uid, this many joins with
// distinct session ids into one room.
const abuseAttempts = 10000

// abuseResult is what abuse.json holds.
type abuseResult struct {
	Abuser AbuserReport `json:"abuser"`
	Read   RosterCost   `json:"roomRead"`
	// Workload is the ordinary users in other rooms, crashing (ghosts) and
	// departing (teardowns) while the abuser runs.
	Workload *workload.WorkloadReport `json:"workload"`
	// Targets are those of the other scenarios (the README's operating
	// defaults): ghost time p99 ≤ lease + 1 s, teardown lag p99 ≤ grace + 1 s.
	GhostTargetMs    float64 `json:"ghostTimeP99TargetMs"`
	TeardownTargetMs float64 `json:"teardownLagP99TargetMs"`
}

// AbuserReport is what the abusing uid got.
type AbuserReport struct {
	Attempts        int              `json:"joinAttempts"`
	Accepted        int64            `json:"accepted"`
	TooManySessions int64            `json:"refusedTooManySessions"`
	Other           map[string]int64 `json:"otherOutcomes,omitempty"`
	Concurrency     int              `json:"concurrency"`
	// StartSecs and EndSecs place the attempts within the scenario, whose
	// ordinary workload starts at 0 and ends at Workload.ElapsedSecs.
	StartSecs   float64          `json:"startSeconds"`
	EndSecs     float64          `json:"endSeconds"`
	JoinLatency workload.Summary `json:"joinLatency"`
	Heartbeats  int64            `json:"heartbeatsOfAcceptedSessions"`
	HBErrors    int64            `json:"heartbeatErrors"`
}

// RosterCost is one room read of the abused room by a participant: the HTTP
// answer, and the Firestore reads the same read costs on an in-process store
// (the server's code; its counters are not exposed over HTTP).
type RosterCost struct {
	HTTPStatus         int   `json:"httpStatus"`
	Participants       int   `json:"participantsListed"`
	AbuserSessionCount int   `json:"abuserSessionCount"`
	Entries            int   `json:"rosterEntries"`
	Reads              int64 `json:"reads"`
	// Bound is 1 + E + 10 × E for E roster entries (the room, the entries,
	// each entry's live sessions at most), plus 1 for the revision's
	// aggregation.
	Bound int64 `json:"bound"`
}

// runAbuse is `scripts/bench abuse`: the caps of issue 11 under the attack
// it describes, beside an ordinary churn workload in other rooms (abuse.json,
// abuse.md). It fails when the cap lets more than 10 sessions in, when the
// room read costs more than its bound, or when a join fails otherwise.
func runAbuse(ctx context.Context, o harness.Options) error {
	hb, lease, grace := 5*time.Second, 15*time.Second, 30*time.Second
	rooms, per, churn := 6, 6, 60*time.Second
	if o.Quick {
		rooms, per, churn = 3, 4, 20*time.Second
	}
	res := abuseResult{GhostTargetMs: float64((lease + time.Second).Milliseconds()), TeardownTargetMs: float64((grace + time.Second).Milliseconds())}
	err := harness.WithStack(ctx, o, "abuse", hb, lease, grace, func(url string, pid int, client *firestore.Client) error {
		cfg := churnConfig(o, "abuse", rooms, per, hb, lease, grace)
		cfg.Churn, cfg.ServerPID = churn, pid
		// Spread the attempts over about the workload's length, so that
		// they run through its churn (ghosts) and its drain (teardowns); a
		// slower server only makes them last longer.
		span := cfg.Steady + cfg.Churn + lease + grace + 10*time.Second
		start := time.Now()
		abuse := make(chan error, 1)
		go func() { abuse <- runAbuser(ctx, o, url, client, start, span, hb, &res) }()
		var err error
		res.Workload, err = workload.NewWorkload(cfg, url, client).Run(ctx)
		if aerr := <-abuse; aerr != nil {
			return aerr
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := o.Write("abuse", AbuseMarkdown(res), res); err != nil {
		return err
	}
	a := res.Abuser
	switch {
	case a.Accepted != 10 || a.TooManySessions != int64(a.Attempts)-10:
		return fmt.Errorf("the sessions cap admitted %d of %d joins (refused %d, other %v); want 10 and the rest too_many_sessions", a.Accepted, a.Attempts, a.TooManySessions, a.Other)
	case res.Read.Reads > res.Read.Bound:
		return fmt.Errorf("the room read cost %d reads, above its bound %d", res.Read.Reads, res.Read.Bound)
	}
	return nil
}

// runAbuser signs up the abuser and a bystander, makes the attempts (4 at a
// time, paced over span), heartbeats the sessions it got, then has the
// bystander read the room once and measures that read's reads.
func runAbuser(ctx context.Context, o harness.Options, url string, fs *firestore.Client, start time.Time, span, hb time.Duration, res *abuseResult) error {
	const concurrency = 4
	api := workload.NewAPI(url)
	hc := &http.Client{Timeout: 30 * time.Second}
	uid, token, err := workload.SignUp(ctx, hc, o.AuthHost)
	if err != nil {
		return err
	}
	byUID, byToken, err := workload.SignUp(ctx, hc, o.AuthHost)
	if err != nil {
		return err
	}
	room := fmt.Sprintf("abuse-%d", time.Now().Unix())
	r, byJoin := api.Join(ctx, byToken, room, "tab", "bystander")
	if r.Status != http.StatusOK {
		return fmt.Errorf("the bystander's join: %d %s %v", r.Status, r.Code, r.Err)
	}

	type lease struct {
		token, sid string
		gen        int64
	}
	var mu sync.Mutex
	held := []lease{{byToken, "tab", byJoin.Generation}} // the bystander's, then the abuser's
	other := map[string]int64{}
	var accepted, refused, heartbeats, hbErrors atomic.Int64
	stopBeats := make(chan struct{})
	beatsDone := make(chan struct{})
	go func() { // keep every held session live, as a real abuser would
		defer close(beatsDone)
		t := time.NewTicker(hb - time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopBeats:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			mu.Lock()
			sessions := append([]lease(nil), held...)
			mu.Unlock()
			for _, l := range sessions {
				heartbeats.Add(1)
				if r, _ := api.Heartbeat(ctx, l.token, room, l.sid, l.gen); r.Status != http.StatusOK {
					hbErrors.Add(1)
				}
			}
		}
	}()

	res.Abuser.StartSecs = time.Since(start).Seconds()
	next := make(chan int)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sid := fmt.Sprintf("s%05d", i)
				r, jr := api.Join(ctx, token, room, sid, "mallory")
				switch {
				case r.Status == http.StatusOK:
					accepted.Add(1)
					mu.Lock()
					held = append(held, lease{token, sid, jr.Generation})
					mu.Unlock()
				case r.Status == http.StatusConflict && r.Code == presence.ETooManySessions:
					refused.Add(1)
				default:
					mu.Lock()
					other[fmt.Sprintf("%d %s %v", r.Status, r.Code, r.Err)]++
					mu.Unlock()
				}
			}
		}()
	}
	for i := range abuseAttempts {
		if wait := time.Until(start.Add(span * time.Duration(i) / abuseAttempts)); wait > 0 {
			workload.SleepCtx(ctx, wait)
		}
		if ctx.Err() != nil {
			break
		}
		if i > 0 && i%1000 == 0 {
			o.Log(fmt.Sprintf("abuse: %d attempts, %d accepted, %d refused too_many_sessions", i, accepted.Load(), refused.Load()))
		}
		next <- i
	}
	close(next)
	wg.Wait()
	res.Abuser.EndSecs = time.Since(start).Seconds()
	res.Abuser.Attempts, res.Abuser.Concurrency = abuseAttempts, concurrency
	res.Abuser.Accepted, res.Abuser.TooManySessions, res.Abuser.Other = accepted.Load(), refused.Load(), other
	res.Abuser.JoinLatency = api.Reports(time.Since(start))[workload.OpJoin].Latency

	// One read by a participant, while the abuser's sessions are live.
	var snap client.RoomSnapshot
	r, snap = api.Read(ctx, byToken, room)
	res.Read.HTTPStatus, res.Read.Participants = r.Status, len(snap.Participants)
	for _, p := range snap.Participants {
		if p.ParticipantID == uid {
			res.Read.AbuserSessionCount = p.SessionCount
		}
	}
	store := firestoredb.New(fs, presence.DefaultSettings(), time.Now)
	before := store.Ops()
	if _, err := store.Roster(ctx, presence.RosterRequest{RoomID: room, CallerID: byUID}); err != nil {
		return fmt.Errorf("the measured room read: %w", err)
	}
	res.Read.Reads = store.Ops().Sub(before).Reads
	entries, err := fs.Collection(firestoredb.RoomsCollection).Doc(room).Collection(firestoredb.ParticipantsCollection).Documents(ctx).GetAll()
	if err != nil {
		return err
	}
	res.Read.Entries = len(entries)
	res.Read.Bound = int64(1+res.Read.Entries+10*res.Read.Entries) + 1

	close(stopBeats)
	<-beatsDone
	res.Abuser.Heartbeats, res.Abuser.HBErrors = heartbeats.Load(), hbErrors.Load()
	mu.Lock()
	defer mu.Unlock()
	for _, l := range held {
		api.Leave(ctx, l.token, room, l.sid, l.gen)
	}
	return nil
}
