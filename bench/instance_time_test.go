package bench

import (
	"math"
	"testing"
)

// Presence as terraform/modules/roomlease deploys it: one vCPU, 512 MiB, 80 requests at once.
func TestReadPresenceDeployment(t *testing.T) {
	d, err := ReadPresenceDeployment("../" + terraformModule)
	if err != nil {
		t.Fatal(err)
	}
	if d.VCPU != 1 || d.Memory != "512Mi" || d.MemoryGiB != 0.5 || d.Concurrency != 80 {
		t.Fatalf("read %+v from terraform/; if the deployment changed, check the new values and update this test", d)
	}
}

// Instance time as Cloud Run bills it, checked against the arithmetic by
// hand: alone, each request bills a whole 100 ms; a busy instance bills
// the hour once, shared by everyone; CPU adds instances.
func TestPriceInstanceTime(t *testing.T) {
	d := PresenceDeployment{VCPU: 1, MemoryGiB: 0.5, Concurrency: 80}
	perSecond := 0.000024 + 0.5*0.0000025
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	t.Run("LowTrafficBillsAQuantumARequest", func(t *testing.T) {
		it := PriceInstanceTime(d, 10, 360, 0.001, 0.010) // one request a second
		near("held", it.HeldSeconds, 0.1)
		near("busy share", it.BusyShare, 1-math.Exp(-0.1))
		near("instance-seconds", it.InstanceSeconds, 3600*(1-math.Exp(-0.1))/10)
		near("US$", it.USD, it.InstanceSeconds*perSecond)
		if it.Instances != 1 || it.InstanceSeconds < 0.9*36 {
			t.Errorf("%+v: want one instance, about 0.1 s a request", it)
		}
	})
	t.Run("BusyInstanceBillsTheHourOnce", func(t *testing.T) {
		it := PriceInstanceTime(d, 1000, 360, 0.001, 0.010) // 100 a second
		if it.Instances != 1 || it.BusyShare < 0.9999 {
			t.Fatalf("%+v: want one instance busy all the hour", it)
		}
		near("instance-seconds", it.InstanceSeconds, 3600*it.BusyShare/1000)
	})
	t.Run("CPUAddsInstances", func(t *testing.T) {
		it := PriceInstanceTime(d, 1000, 3600, 0.002, 0.010) // 1 000 a second, 2 vCPU
		if it.Instances != 4 {
			t.Fatalf("%d instances for 2 vCPU at 60 %% each, want 4", it.Instances)
		}
	})
	t.Run("SlowRequestsRoundUp", func(t *testing.T) {
		near("held", PriceInstanceTime(d, 10, 360, 0.001, 0.150).HeldSeconds, 0.2)
		near("held", PriceInstanceTime(d, 10, 360, 0.001, 0.100).HeldSeconds, 0.1)
	})
}
