package emuprofile

import (
	"maps"
	"strings"
	"testing"
)

// A dump cut down from a real one of the emulator during the fleet, with
// one thread of each kind Classify must tell apart.
const dump = `2026-12-04 22:45:10
Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):

"Reference Handler" #2 daemon prio=10 os_prio=0 cpu=1.99ms elapsed=17.59s tid=0x1 nid=0x584f waiting on condition  [0x0]
   java.lang.Thread.State: RUNNABLE
	at java.lang.ref.Reference.waitForReferencePendingList(java.base@17.0.15/Native Method)
	at java.lang.ref.Reference.processPendingReferences(java.base@17.0.15/Reference.java:253)

"C2 CompilerThread0" #7 daemon prio=9 os_prio=0 cpu=1552.92ms elapsed=17.58s tid=0x2 nid=0x5854 runnable  [0x0]
   java.lang.Thread.State: RUNNABLE
   Compiling: 4731       4       com.google.cloud.datastore.core.rep.path.AutoValue_StringPathElement::hashCode (34 bytes)

"C1 CompilerThread0" #8 daemon prio=9 os_prio=0 cpu=1003.92ms elapsed=17.58s tid=0x3 nid=0x5855 runnable  [0x0]
   java.lang.Thread.State: RUNNABLE

"grpc-default-executor-3" #40 daemon prio=5 os_prio=0 cpu=900.00ms elapsed=17.00s tid=0x4 nid=0x6000 runnable  [0x0]
   java.lang.Thread.State: RUNNABLE
	at java.util.concurrent.ConcurrentHashMap$Traverser.advance(java.base@17.0.15/ConcurrentHashMap.java:3379)
	at com.google.cloud.datastore.emulator.firestore.FirestoreEmulatorHelper.snapshotQuery(FirestoreEmulatorHelper.java:500)
	at com.google.cloud.datastore.emulator.firestore.webchannel.CloudFirestoreV1Router.runQuery(CloudFirestoreV1Router.java:300)
	at io.grpc.internal.ServerImpl$JumpToApplicationThreadServerStreamListener$1StreamCreated.runInContext(ServerImpl.java:555)

"grpc-default-executor-4" #41 daemon prio=5 os_prio=0 cpu=800.00ms elapsed=17.00s tid=0x5 nid=0x6001 runnable  [0x0]
   java.lang.Thread.State: RUNNABLE
	at com.google.cloud.datastore.emulator.firestore.webchannel.CloudFirestoreV1Router.runAggregationQuery(CloudFirestoreV1Router.java:320)
	at io.grpc.internal.ServerImpl$JumpToApplicationThreadServerStreamListener$1StreamCreated.runInContext(ServerImpl.java:555)

"grpc-default-executor-5" #42 daemon prio=5 os_prio=0 cpu=700.00ms elapsed=17.00s tid=0x6 nid=0x6002 waiting on condition  [0x0]
   java.lang.Thread.State: WAITING (parking)
	at jdk.internal.misc.Unsafe.park(java.base@17.0.15/Native Method)
	at com.google.cloud.datastore.emulator.firestore.webchannel.CloudFirestoreV1Router.commit(CloudFirestoreV1Router.java:340)

"grpc-nio-worker-ELG-3-1" #30 daemon prio=5 os_prio=0 cpu=500.00ms elapsed=17.00s tid=0x7 nid=0x6003 runnable  [0x0]
   java.lang.Thread.State: RUNNABLE
	at sun.nio.ch.EPoll.wait(java.base@17.0.15/Native Method)
	at io.netty.channel.nio.NioEventLoop.select(NioEventLoop.java:813)

"grpc-nio-worker-ELG-3-2" #31 daemon prio=5 os_prio=0 cpu=500.00ms elapsed=17.00s tid=0x8 nid=0x6004 runnable  [0x0]
   java.lang.Thread.State: RUNNABLE
	at io.netty.handler.codec.http2.DefaultHttp2FrameWriter.writeData(DefaultHttp2FrameWriter.java:150)
	at io.netty.channel.nio.NioEventLoop.run(NioEventLoop.java:569)

"pool-1-thread-1" #50 prio=5 os_prio=0 cpu=10.00ms elapsed=17.00s tid=0x9 nid=0x6005 runnable  [0x0]
   java.lang.Thread.State: RUNNABLE
	at java.util.HashMap.resize(java.base@17.0.15/HashMap.java:700)
	at com.google.cloud.datastore.emulator.Something.run(Something.java:10)
`

func TestClassify_CountsRunningThreadsByTheirRPC(t *testing.T) {
	got := Classify(dump)
	want := map[string]int{
		"runQuery":            1,
		"runAggregationQuery": 1,
		ClassTransport:        1, // the Netty writer; the one in epoll waits
		ClassCompiler:         1, // the C2 thread compiling; the idle C1 says nothing
		ClassOther:            1,
	}
	if !maps.Equal(got, want) {
		t.Fatalf("Classify = %v, want %v (a parked commit and the reference handler are waits, not samples)", got, want)
	}
}

func TestProfile_TextListsTheBiggestClassFirst(t *testing.T) {
	var p Profile
	p.Classes = map[string]int{}
	p.add("", map[string]int{"commit": 1, "runQuery": 3})
	p.add("", map[string]int{"runQuery": 1, "batchGetDocuments": 1})
	text := p.Text("title")
	if p.Samples != 6 || p.Dumps != 2 {
		t.Fatalf("samples = %d, want 6", p.Samples)
	}
	query, commit := strings.Index(text, "runQuery"), strings.Index(text, "commit")
	if query < 0 || commit < 0 || query > commit {
		t.Fatalf("runQuery (4 samples) should come before commit (1):\n%s", text)
	}
	if !strings.Contains(text, "4   66.7%  runQuery") {
		t.Fatalf("runQuery should show 4 samples, 66.7%%:\n%s", text)
	}
}

// A dump taken in a phase counts in the whole and in that phase; a phase
// entered again adds to its first part; a dump outside phases adds to the
// whole only.
func TestProfile_SplitsByPhase(t *testing.T) {
	p := Profile{Classes: map[string]int{}}
	p.add("one room: join", map[string]int{"runAggregationQuery": 2, "commit": 1})
	p.add("", map[string]int{"runQuery": 5})
	p.add("1000 rooms: join", map[string]int{"runQuery": 1})
	p.add("one room: join", map[string]int{"commit": 1})
	if p.Dumps != 4 || p.Samples != 10 || len(p.Phases) != 2 {
		t.Fatalf("dumps %d, samples %d, phases %d; want 4, 10, 2", p.Dumps, p.Samples, len(p.Phases))
	}
	join := p.Phases[0]
	if join.Name != "one room: join" || join.Dumps != 2 || join.Samples != 4 || !maps.Equal(join.Classes, map[string]int{"runAggregationQuery": 2, "commit": 2}) {
		t.Fatalf("first phase = %+v", join)
	}
	text := p.Text("title")
	if !strings.Contains(text, "one room: join: 2 dumps, 4 samples (2.0 running threads a dump)") || !strings.Contains(text, "      2   50.0%  commit") {
		t.Fatalf("phase missing from the text:\n%s", text)
	}
}
