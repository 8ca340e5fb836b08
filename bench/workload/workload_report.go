package workload

import (
	"time"
)

// WorkloadReport is what a run measured.
type WorkloadReport struct {
	Name            string               `json:"name"`
	Rooms           int                  `json:"rooms"`
	Users           int                  `json:"users"`
	HeartbeatSecs   float64              `json:"heartbeatSeconds"`
	LeaseSecs       float64              `json:"leaseSeconds"`
	GraceSecs       float64              `json:"graceSeconds"`
	ElapsedSecs     float64              `json:"elapsedSeconds"`
	Ops             map[Op]OpReport      `json:"ops"`
	Steady          SteadyReport         `json:"steady"`
	GhostTime       Summary              `json:"ghostTime"`
	GhostBeyond     Summary              `json:"ghostBeyondLease"`
	LeaveVisible    Summary              `json:"leaveVisible"`
	LeaveDrain      Summary              `json:"leaveVisibleAllAtOnce"`
	TeardownLag     Summary              `json:"teardownLag"`
	TeardownLeave   Summary              `json:"teardownLagAfterLeave"`
	TeardownExpiry  Summary              `json:"teardownLagAfterExpiry"`
	RoomsDeleted    int64                `json:"roomsDeleted"`
	RoomsLeft       int                  `json:"roomsNotTornDown"`
	TeardownNoCause int64                `json:"teardownsWithoutObservedDeparture"`
	Events          map[string]int64     `json:"events"`
	FalseRemovals   int64                `json:"falseRemovals"`
	FalseDetails    []string             `json:"falseRemovalDetails,omitempty"`
	LateExpiries    int64                `json:"heartbeatsRejectedAfterLeaseEnd"`
	ListenerErrors  int64                `json:"listenerErrors"`
	Memory          *MemoryReport        `json:"serverMemory,omitempty"`
	ServerCPU       *CPUReport           `json:"serverCPU,omitempty"`
	Samples         map[string][]float64 `json:"-"`
}

// SteadyReport is the no-churn phase: heartbeats and what listeners saw.
type SteadyReport struct {
	Seconds             float64 `json:"seconds"`
	Heartbeats          int64   `json:"heartbeats"`
	RosterDeliveries    int64   `json:"rosterListenerDeliveries"`
	RosterDocReads      int64   `json:"rosterListenerDocReads"`
	RoomDocDeliveries   int64   `json:"roomDocListenerDeliveries"`
	DeliveriesPerHB     float64 `json:"rosterDeliveriesPerHeartbeat"`
	RoomDeliveriesPerHB float64 `json:"roomDocDeliveriesPerHeartbeat"`
	HeartbeatsPerSecond float64 `json:"heartbeatsPerSecond"`
	// Sessions held through the phase. (Heartbeats ÷ sessions is not a
	// participant-hour's rate: sessions that joined together renew in
	// step, so a window of a few renewals counts one or two each.)
	Sessions             int     `json:"sessions"`
	HeartbeatLatency     Summary `json:"heartbeatLatency"`
	HeartbeatErrorsOther int64   `json:"heartbeatErrors"`
}

// report gathers what the run measured, after its listeners have stopped.
func (w *Workload) report(elapsed time.Duration, users int, steady SteadyReport, roomsLeft int, rss *RSSSampler) *WorkloadReport {
	cfg := w.cfg
	rep := &WorkloadReport{Name: cfg.Name, Rooms: cfg.Rooms, Users: users, HeartbeatSecs: w.hb().Seconds(), LeaseSecs: w.leaseD().Seconds(),
		GraceSecs: cfg.Grace.Seconds(), ElapsedSecs: elapsed.Seconds(), Ops: w.api.Reports(elapsed), Steady: steady,
		GhostTime: w.ghost.Summary(), GhostBeyond: w.ghostBeyond.Summary(), LeaveVisible: w.leaveVisible.Summary(), LeaveDrain: w.leaveVisibleDrain.Summary(),
		TeardownLag: w.teardownLag.Summary(), TeardownLeave: w.teardownAfterLeave.Summary(), TeardownExpiry: w.teardownAfterExpiry.Summary(),
		RoomsDeleted: w.roomsDeleted.Load(), RoomsLeft: roomsLeft, TeardownNoCause: w.teardownUnattributed.Load(),
		FalseRemovals: w.falseRemovals.Load(), LateExpiries: w.lateExpiries.Load(), ListenerErrors: w.listenerErrors.Load(),
		Samples: map[string][]float64{"ghost": w.ghost.Values(), "teardown": w.teardownLag.Values(), "leaveVisible": w.leaveVisible.Values()}}
	w.evMu.Lock()
	rep.Events = w.events
	rep.FalseDetails = w.falseDetails
	w.evMu.Unlock()
	if rss != nil {
		m := rss.Stop()
		rep.Memory = &m
	}
	return rep
}
