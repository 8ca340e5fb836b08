package presence

import "time"

// The TTL backstop, and why it can never remove live state.
//
// Firestore TTL deletes a document some time (typically within a day) after
// its expireAt has passed, never before. So a document is safe from TTL for
// as long as its expireAt stays in the future.
//
//   - Session: expireAt = leaseExpiresAt + SessionRetention (≥ 1h). A live
//     lease has leaseExpiresAt > now, hence expireAt > now + 1h: TTL cannot
//     touch it. Every heartbeat moves both forward in the same write.
//   - Room and roster entry: expireAt = time of their last write +
//     RecordHorizon (default 30 days). Ordinary heartbeats do not write
//     them, so a heartbeat refreshes them when they come within RefreshWindow
//     (one day) of expiring. While any lease in the room is live, heartbeats
//     come every few seconds, so expireAt never gets closer than one day
//     minus one heartbeat interval: TTL cannot touch them either.
//   - Typing: expireAt = expiresAt + 1h; receipts and closing records: their
//     last write + RecordHorizon or ClosingRetention.
//
// With the sweeper switched off, an abandoned session goes at most
// SessionRetention (+ TTL's own delay) after its lease ended, and its room
// and roster entry at most RecordHorizon after their last write.

// RefreshWindow is how close to its expireAt a room or roster entry may get
// before a heartbeat refreshes it: at most one such write per document per
// day.
const RefreshWindow = 24 * time.Hour

// ShardsExpiry decides, for a room about to be written with its expireAt,
// whether the revision shards' expireAt must be pushed forward with it, and
// returns the room to write.
//
// A shard's expireAt moves only when the shard is written: by a visible
// change of one of its users, or by a refresh of all shards. A lifecycle
// write (a revive, the start of a grace) moves the room's expireAt a whole
// RecordHorizon ahead, and a heartbeat refreshes the room, and the shards
// with it, only within RefreshWindow of that new expireAt: a shard last
// written long before could expire first, and the revision would drop. So a
// room whose expireAt would run more than half a RefreshWindow ahead of
// RevisionExpireAt (the least any shard may carry) refreshes all shards in
// the same write: at most twice a day per room, and every shard then lives
// until the heartbeats' refresh comes round. (A room that keeps its
// revision on its entries counts on no shard: the store then refreshes
// only the documents it still needs, see firestoredb's
// refreshRevisionExpiry.)
func (s Settings) ShardsExpiry(room Room) (Room, bool) {
	if room.ExpireAt.Sub(room.RevisionExpireAt) < RefreshWindow/2 {
		return room, false
	}
	room.RevisionExpireAt = room.ExpireAt
	return room, true
}

// RefreshDue reports whether a heartbeat of sess at now should check its
// room's and roster entry's expireAt. It judges by the session's own copies,
// so the common heartbeat reads nothing else.
func (s Settings) RefreshDue(now time.Time, sess Session) bool {
	return !now.Add(RefreshWindow).Before(sess.RoomExpireAt) || !now.Add(RefreshWindow).Before(sess.EntryExpireAt)
}

// Refreshed returns the expireAt a room or roster entry should have after a
// heartbeat at now, and whether that is a change worth writing. Another
// session may have refreshed the document already; then nothing is written.
func (s Settings) Refreshed(now, expireAt time.Time) (time.Time, bool) {
	if now.Add(RefreshWindow).Before(expireAt) {
		return expireAt, false
	}
	return now.Add(s.RecordHorizon), true
}
