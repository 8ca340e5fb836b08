package presence

import (
	"fmt"
	"math"
	"time"
)

// Settings are the timings and limits presence decisions are made with.
type Settings struct {
	Heartbeat       time.Duration // how often clients renew; told to them on join
	Lease           time.Duration // how long a renewal holds
	EmptyRoomGrace  time.Duration // from the last departure to teardown eligibility
	MaxParticipants int           // roster entries per room
	// LargeRoomThreshold is the roster size from which a room is
	// summarized (see summary.go): its listeners follow one summary
	// document, refreshed at most once a second, instead of every entry.
	// A room's policy may set its own (Policy.LargeRoomThreshold).
	LargeRoomThreshold int
	TypingExpiry       time.Duration // how long a typing signal shows without renewal

	// MaxSessionsPerUser is how many sessions with a live lease one user may
	// hold in one room (tabs, devices); see checkSessionCap.
	MaxSessionsPerUser int
	// MaxRoomsPerUser is how many rooms one user may be on the roster of at
	// once; see admitRoom.
	MaxRoomsPerUser int

	// RenewWhenLeft is the share of the lease (0 < f ≤ 1) that may at most
	// be left for a heartbeat to renew it; one that finds more left writes
	// nothing. 1 renews on every heartbeat. See RenewWithin. Clients are
	// told to come back when that much is left (RenewAt), so that every
	// heartbeat renews: at the default, one heartbeat interval's share of
	// the lease (1/3 of 15 s; the configuration derives it from the
	// interval and lease it is given), one request and one write every
	// 10 s, with 5 s left for retries.
	RenewWhenLeft float64

	// RecordHorizon is how far ahead rooms and roster entries set their
	// expireAt (the TTL backstop) whenever they are written. Ordinary
	// heartbeats do not write them, so the horizon must comfortably exceed the
	// life of a busy room between visible changes.
	RecordHorizon time.Duration
	// SessionRetention is how long after its lease ends a session document
	// may still exist before TTL removes it: expireAt = leaseExpiresAt +
	// SessionRetention. Since a live lease has leaseExpiresAt > now, TTL can
	// never remove a live session; the retention leaves the sweeper time to
	// do the roster bookkeeping before TTL removes the evidence.
	SessionRetention time.Duration

	// ClosingRetention is how long the record of a torn-down room (and its
	// archived receipts) is kept before TTL removes it.
	ClosingRetention time.Duration
	// ArchiveReceipts copies a room's read receipts under its closing record
	// at teardown; otherwise they are deleted with the room.
	ArchiveReceipts bool

	// RevisionShards is how many documents a room's revision is spread
	// over. Each visible roster change increments one of them (chosen by the
	// user's id) inside its transaction, so concurrent changes by different
	// users rarely write the same document; readers add them up.
	RevisionShards int

	// PolicyCache is how long an instance may act on a room's policy
	// (roomPolicies/{roomId}) as it last read it, for heartbeats, typing
	// and receipts; joins always read it afresh, inside their transaction.
	// So a heartbeat costs one policy read per room, instance and period
	// rather than one per heartbeat, and a user removed from a policy is
	// refused within this period. 0 reads the policy on every request.
	// The default is two minutes (at most ten): with renewals every 10 s
	// fenced without a read, the policy is most of what a heartbeat still
	// reads, and at a minute it alone came to 60 reads per participant-hour
	// in a room of one (docs/data-model.md, "What a heartbeat reads"). The
	// period matters only for a policy written without updatedAt: one with
	// it is enforced by the sweeper's eviction within a pass, which ends
	// the removed user's sessions whatever the instances have cached.
	PolicyCache time.Duration
	// MaxStateBytes bounds a participant's state as compact JSON (see
	// State); it must fit in a request body with the rest of it.
	MaxStateBytes int
	// RecentlyLeft is how long a user whose roster entry went is shown
	// among the room's recent departures (see Departure); 0 records none.
	RecentlyLeft time.Duration
	// AwayLease and AwayHeartbeat are the lease and heartbeat interval of
	// a session that is away (see away.go).
	AwayLease     time.Duration
	AwayHeartbeat time.Duration
	// ReconnectWindow is how long after a teardown candidate (rollout.go)
	// a join to its room counts as a reconnect that enforcement breaks;
	// three leases by default (the configuration derives it from the lease
	// it is given).
	ReconnectWindow time.Duration
}

// DefaultSettings are the operating defaults (docs/settings.md).
func DefaultSettings() Settings {
	return Settings{
		Heartbeat:          5 * time.Second,
		Lease:              15 * time.Second,
		RenewWhenLeft:      1.0 / 3,
		EmptyRoomGrace:     30 * time.Second,
		MaxParticipants:    1000,
		LargeRoomThreshold: 500,
		TypingExpiry:       7 * time.Second,
		RecordHorizon:      30 * 24 * time.Hour,
		SessionRetention:   24 * time.Hour,
		ClosingRetention:   30 * 24 * time.Hour,
		RevisionShards:     16,
		PolicyCache:        2 * time.Minute,
		MaxSessionsPerUser: 10,
		MaxRoomsPerUser:    20,
		MaxStateBytes:      1024,
		RecentlyLeft:       2 * time.Minute,
		AwayLease:          2 * time.Minute,
		AwayHeartbeat:      50 * time.Second,
		ReconnectWindow:    45 * time.Second,
	}
}

// Validate returns an error naming the first setting that cannot work.
func (s Settings) Validate() error {
	switch {
	case s.Heartbeat < 500*time.Millisecond:
		return fmt.Errorf("heartbeat interval %v is below the minimum of 500ms", s.Heartbeat)
	case s.Lease < 2*s.Heartbeat:
		return fmt.Errorf("lease %v must be at least twice the heartbeat interval %v, so that one lost heartbeat does not end a lease", s.Lease, s.Heartbeat)
	case s.Lease > time.Hour:
		return fmt.Errorf("lease %v is longer than the maximum of 1h", s.Lease)
	case !(s.RenewWhenLeft > 0 && s.RenewWhenLeft <= 1):
		return fmt.Errorf("renew-when-left %v must be more than 0 and at most 1 (a share of the lease)", s.RenewWhenLeft)
	case s.RenewWithin() < s.Heartbeat:
		// The inequality RenewWithin's comment proves sufficient: below it,
		// a client on schedule could skip its way past its lease end.
		return fmt.Errorf("renew-when-left %v of lease %v is %v, less than the heartbeat interval %v: a client heartbeating on schedule could see its lease end; raise it to at least %.2f",
			s.RenewWhenLeft, s.Lease, s.RenewWithin(), s.Heartbeat, math.Ceil(100*s.Heartbeat.Seconds()/s.Lease.Seconds())/100)
	case s.EmptyRoomGrace < 0:
		return fmt.Errorf("empty-room grace %v must not be negative", s.EmptyRoomGrace)
	case s.TypingExpiry < time.Second || s.TypingExpiry > time.Minute:
		return fmt.Errorf("typing expiry %v must be between 1s and 1m", s.TypingExpiry)
	case s.MaxParticipants < 1:
		return fmt.Errorf("max participants %d must be at least 1", s.MaxParticipants)
	case s.LargeRoomThreshold < 2:
		return fmt.Errorf("large room threshold %d must be at least 2", s.LargeRoomThreshold)
	case s.MaxSessionsPerUser < 1:
		return fmt.Errorf("max sessions per user %d must be at least 1", s.MaxSessionsPerUser)
	case s.MaxRoomsPerUser < 1:
		return fmt.Errorf("max rooms per user %d must be at least 1", s.MaxRoomsPerUser)
	case s.RecordHorizon < 48*time.Hour:
		return fmt.Errorf("record horizon %v must be at least 48h: heartbeats refresh it only within its last day", s.RecordHorizon)
	case s.ClosingRetention < time.Hour:
		return fmt.Errorf("closing retention %v must be at least 1h", s.ClosingRetention)
	case s.RevisionShards < 1 || s.RevisionShards > 64:
		return fmt.Errorf("revision shards %d must be between 1 and 64", s.RevisionShards)
	case s.SessionRetention < time.Hour:
		return fmt.Errorf("session retention %v must be at least 1h", s.SessionRetention)
	case s.MaxStateBytes < 2 || s.MaxStateBytes > MaxStateBytesLimit:
		return fmt.Errorf("max state bytes %d must be between 2 and %d (a state travels in a request body of at most 4 KiB)", s.MaxStateBytes, MaxStateBytesLimit)
	case s.AwayHeartbeat < s.Heartbeat:
		return fmt.Errorf("away heartbeat %v must be at least the heartbeat interval %v", s.AwayHeartbeat, s.Heartbeat)
	case s.AwayLease < s.Lease || s.AwayLease < 2*s.AwayHeartbeat || s.AwayLease > time.Hour:
		return fmt.Errorf("away lease %v must be at least the lease %v and twice the away heartbeat %v, and at most 1h", s.AwayLease, s.Lease, s.AwayHeartbeat)
	case s.RecentlyLeft < 0 || s.RecentlyLeft > time.Hour:
		return fmt.Errorf("recently left %v must be between 0 and 1h", s.RecentlyLeft)
	case s.ReconnectWindow <= 0 || s.ReconnectWindow > 24*time.Hour:
		return fmt.Errorf("reconnect window %v must be more than 0 and at most 24h", s.ReconnectWindow)
	case s.PolicyCache < 0 || s.PolicyCache > 10*time.Minute:
		return fmt.Errorf("policy cache %v must be between 0 and 10m: it bounds how long a user removed from a room's policy keeps heartbeating", s.PolicyCache)
	}
	return nil
}

// ExactCapMargin is how close to its cap the roster of a room created before
// RevisionOnEntries may be before joins count its entries inside their
// transaction. Further away, a count read just before the transaction is
// enough, and concurrent joins do not serialise on the count; closer, they
// do, so the last places are exact unless more than ExactCapMargin joins
// race for them at once. Rooms created since hold the cap with claims on
// places instead (JudgeClaim). The margin also bounds the size a join may
// have skipped when it marks a room large (summary.go), and how far the
// emptiness check trusts the shards' sum.
const ExactCapMargin = 50

// CountExactly reports whether a join that adds an entry to a room whose
// roster had entries when counted outside the transaction must count again
// inside it.
func (s Settings) CountExactly(entries int, p *Policy) bool {
	return entries >= s.roomCap(p)-ExactCapMargin
}

// RoomCap is the participant cap of a room with policy p (nil: none).
func (s Settings) RoomCap(p *Policy) int { return s.roomCap(p) }

func (s Settings) roomCap(p *Policy) int {
	if p != nil && p.MaxParticipants > 0 && p.MaxParticipants < s.MaxParticipants {
		return p.MaxParticipants
	}
	return s.MaxParticipants
}
