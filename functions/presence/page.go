package presence

// Paging through a roster: in a large room listeners follow the summary,
// and the whole roster is read page by page, on demand.

// MaxPageSize and DefaultPageSize bound a roster page.
const (
	MaxPageSize     = 500
	DefaultPageSize = 100
)

// RosterPageRequest asks for up to Limit roster entries whose user id
// sorts after After ("" for the first page), for the participant CallerID.
type RosterPageRequest struct {
	RoomID   string
	CallerID string
	After    string
	Limit    int
}

// Validate returns EInvalid for bad ids or a limit outside 1..MaxPageSize
// (0 means DefaultPageSize).
func (r *RosterPageRequest) Validate() error {
	if err := (RosterRequest{RoomID: r.RoomID, CallerID: r.CallerID}).Validate(); err != nil {
		return err
	}
	if r.After != "" {
		if err := ValidateParticipantID(r.After); err != nil {
			return Errorf(EInvalid, "pageToken is not a page token")
		}
	}
	if r.Limit == 0 {
		r.Limit = DefaultPageSize
	}
	if r.Limit < 1 || r.Limit > MaxPageSize {
		return Errorf(EInvalid, "pageSize must be between 1 and %d", MaxPageSize)
	}
	return nil
}

// RosterPage is one page of roster entries, in user id order, as
// listeners see them (live, or awaiting the sweeper after a lease ended),
// read at Revision. Next is the After of the next page, "" after the last.
type RosterPage struct {
	RoomID       string
	Revision     int64
	Participants []Participant
	Next         string
}
