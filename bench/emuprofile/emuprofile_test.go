package emuprofile

import (
	"maps"
	"strings"
	"testing"
	"time"
)

// Frames as jfr prints them, innermost first, cut down from a real
// recording of the emulator during the fleet.
var (
	commitInLocks = []string{
		"java/util/HashMap.getNode",
		"com/google/common/collect/StandardTable$Column$EntrySet.size",
		"com/google/cloud/datastore/emulator/impl/transactions/ReactiveLockManager.releaseLocks",
		"com/google/cloud/datastore/emulator/impl/transactions/ReactiveLockManager.tick",
		"com/google/cloud/datastore/emulator/firestore/FirestoreEmulatorHelper.commitHelper",
		"com/google/cloud/datastore/emulator/firestore/webchannel/CloudFirestoreV1Router.commit",
		"io/grpc/stub/ServerCalls$UnaryServerCallHandler$UnaryServerCallListener.onHalfClose",
	}
	aggregation = []string{
		"com/google/cloud/datastore/core/rep/EntityRef.collectionId",
		"com/google/cloud/datastore/emulator/firestore/FirestoreEmulatorHelper.snapshotAggregationQuery",
		"com/google/cloud/datastore/emulator/firestore/webchannel/CloudFirestoreV1Router.runAggregationQuery",
		"io/grpc/internal/ServerImpl$JumpToApplicationThreadServerStreamListener$1StreamCreated.runInContext",
	}
	transport = []string{
		"io/netty/handler/codec/http2/DefaultHttp2FrameWriter.writeData",
		"io/netty/channel/nio/NioEventLoop.run",
		"java/lang/Thread.run",
	}
	other = []string{"java/util/HashMap.resize", "java/lang/Thread.run"}
)

func TestClassOf(t *testing.T) {
	for _, c := range []struct {
		frames []string
		want   string
	}{
		{commitInLocks, "commit, in the lock manager"},
		{aggregation, "runAggregationQuery"},
		{transport, ClassTransport},
		{other, ClassOther},
		{nil, ClassOther},
	} {
		if got := classOf(c.frames); got != c.want {
			t.Errorf("classOf(%v) = %q, want %q", c.frames, got, c.want)
		}
	}
}

// The fields read from `jfr print --json`, among the many it prints.
func TestDecodeSamples(t *testing.T) {
	const printed = `{"recording": {"events": [
	  {"type": "jdk.ExecutionSample", "values": {"startTime": "2026-12-05T01:29:46.038213001Z",
	    "sampledThread": {"osName": "grpc-default-executor-44"},
	    "stackTrace": {"truncated": false, "frames": [
	      {"method": {"type": {"name": "java/util/HashMap", "package": {"name": "java/util"}}, "name": "getNode", "descriptor": "(I)V"}, "lineNumber": 568},
	      {"method": {"type": {"name": "com/google/cloud/datastore/emulator/firestore/webchannel/CloudFirestoreV1Router"}, "name": "commit"}}]}}},
	  {"type": "jdk.ExecutionSample", "values": {"startTime": "2026-12-05T01:29:46.058Z", "stackTrace": null}}]}}`
	got, err := decodeSamples(strings.NewReader(printed))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].frames) != 2 || got[0].frames[1] != "com/google/cloud/datastore/emulator/firestore/webchannel/CloudFirestoreV1Router.commit" ||
		got[0].at.Nanosecond() != 38213001 || len(got[1].frames) != 0 {
		t.Fatalf("decoded %+v", got)
	}
	if _, err := decodeSamples(strings.NewReader("not json")); err == nil {
		t.Fatal("garbage decoded")
	}
}

// A sample counts in the whole and in the phase of the last mark before
// it; one after a mark of no phase, or before any mark, in the whole only;
// a phase entered twice adds up, time included.
func TestProfileOf_SplitsByPhase(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	marks := []mark{{ms(0), "one room: join"}, {ms(100), ""}, {ms(200), "1000 rooms: join"}, {ms(300), "one room: join"}, {ms(350), ""}}
	samples := []sample{
		{ms(-5), commitInLocks},  // before any mark
		{ms(10), commitInLocks},  // one room
		{ms(90), aggregation},    // one room
		{ms(150), transport},     // between phases
		{ms(250), aggregation},   // 1000 rooms
		{ms(320), commitInLocks}, // one room again
	}
	p := profileOf(samples, marks)
	if p.Samples != 6 || p.Classes["commit, in the lock manager"] != 3 || len(p.Phases) != 2 {
		t.Fatalf("whole: %d samples, %v, %d phases", p.Samples, p.Classes, len(p.Phases))
	}
	one := p.Phases[0]
	if one.Name != "one room: join" || one.Samples != 3 || one.Seconds < 0.149 || one.Seconds > 0.151 ||
		!maps.Equal(one.Classes, map[string]int{"commit, in the lock manager": 2, "runAggregationQuery": 1}) {
		t.Fatalf("first phase %+v", one)
	}
	text := p.Text("title")
	if !strings.Contains(text, "one room: join: 0.2 s, 3 samples") || !strings.Contains(text, "      2   66.7%  commit, in the lock manager") {
		t.Fatalf("text:\n%s", text)
	}
}
