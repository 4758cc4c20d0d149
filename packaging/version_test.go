package packaging

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// versionsInOrder are versions as packaging/version.sh writes them, each older than the next:
// the untagged history before the VERSION file, a release, its tree with local changes, builds
// after it (the commit count decides, not the number of digits or the commit), the next releases.
var versionsInOrder = []string{
	"0.0.0+159.g5bf47d0",
	"0.1.0",
	"0.1.0+0.gd2b6b0a.dirty",
	"0.1.0+1.gffffff0",
	"0.1.0+9.gaaaaaaa",
	"0.1.0+9.gaaaaaaa.dirty",
	"0.1.0+10.g0000000",
	"0.1.0+103.gd2b6b0a",
	"0.1.1",
	"0.2.0",
	"0.10.0",
	"1.0.0",
}

// TestVersionOrderDpkg: dpkg sorts the versions (with and without a package revision) as builds
// were made, so that apt upgrades a host to a later build and dpkg warns of a downgrade.
func TestVersionOrderDpkg(t *testing.T) {
	dpkg := lookPath(t, "dpkg")
	for i := 1; i < len(versionsInOrder); i++ {
		older, newer := versionsInOrder[i-1], versionsInOrder[i]
		for _, rev := range []string{"", "-1"} {
			for _, c := range []struct{ a, op, b string }{{older + rev, "lt", newer + rev}, {newer + rev, "gt", older + rev}} {
				if err := exec.Command(dpkg, "--compare-versions", c.a, c.op, c.b).Run(); err != nil {
					t.Errorf("dpkg --compare-versions %s %s %s: %v", c.a, c.op, c.b, err)
				}
			}
		}
		// A later build with the first package revision is newer than an earlier one rebuilt.
		if err := exec.Command(dpkg, "--compare-versions", newer+"-1", "gt", older+"-9").Run(); err != nil {
			t.Errorf("dpkg: %s-1 is not newer than %s-9", newer, older)
		}
	}
}

// TestVersionOrderRPM: rpm's vercmp agrees (rpm.vercmp as rpmdev-vercmp uses it).
func TestVersionOrderRPM(t *testing.T) {
	rpm := lookPath(t, "rpm")
	var lua strings.Builder
	for i := 1; i < len(versionsInOrder); i++ {
		lua.WriteString(`print(rpm.vercmp("` + versionsInOrder[i-1] + `", "` + versionsInOrder[i] + `") .. " ");`)
	}
	out, err := exec.Command(rpm, "--eval", "%{lua: "+lua.String()+"}").CombinedOutput()
	if err != nil {
		t.Fatalf("rpm --eval: %v\n%s", err, out)
	}
	got := strings.Fields(string(out))
	if len(got) != len(versionsInOrder)-1 {
		t.Fatalf("rpm --eval printed %q", out)
	}
	for i, v := range got {
		if v != "-1" {
			t.Errorf("rpm.vercmp(%s, %s) = %s, want -1", versionsInOrder[i], versionsInOrder[i+1], v)
		}
	}
}

// TestVersionScript: packaging/version.sh gives the commit that last changed VERSION the
// VERSION file's own version, and every commit after it a version of its own.
func TestVersionScript(t *testing.T) {
	git := lookPath(t, "git")
	if out, _ := exec.Command(git, "rev-parse", "--is-shallow-repository").Output(); strings.TrimSpace(string(out)) != "false" {
		t.Skip("not a full git clone")
	}
	run := func(args ...string) string {
		out, err := exec.Command("./version.sh", args...).Output()
		if err != nil {
			t.Fatalf("version.sh %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	head := run()
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(\+\d+\.g[0-9a-f]{7,}(\.dirty)?)?$`).MatchString(head) {
		t.Errorf("version.sh = %q", head)
	}
	release, err := exec.Command(git, "log", "-1", "--format=%H", "--", "../VERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := run(strings.TrimSpace(string(release))), strings.TrimSpace(read(t, "../VERSION")); got != want {
		t.Errorf("version.sh of the commit that last changed VERSION = %q, want %q", got, want)
	}
	if parent := run("HEAD~1"); parent == run("HEAD") {
		t.Errorf("HEAD and HEAD~1 are both %s", parent)
	}
}

func lookPath(t *testing.T, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("needs %s: %v", tool, err)
	}
	return p
}
