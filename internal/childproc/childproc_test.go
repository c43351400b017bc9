package childproc

import (
	"os/exec"
	"strings"
	"testing"
)

func TestTailBufferKeepsTheEnd(t *testing.T) {
	b := &TailBuffer{max: 8}
	for _, s := range []string{"abc", "defgh", "ijk"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := b.String(); got != "defghijk" {
		t.Errorf("kept %q, want the last 8 bytes %q", got, "defghijk")
	}
}

func TestStartKeepsOutputAndExit(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	p, err := Start(exec.Command(sh, "-c", "echo started; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	<-p.Exited
	if p.Err == nil || !strings.Contains(p.Err.Error(), "exit status 3") {
		t.Errorf("Err = %v, want exit status 3", p.Err)
	}
	if p.Out.String() != "started" {
		t.Errorf("Out = %q, want started", p.Out.String())
	}
	if Alive(p.Cmd.Process.Pid) && p.Cmd.ProcessState == nil {
		t.Errorf("process %d still there after Exited", p.Cmd.Process.Pid)
	}
}
