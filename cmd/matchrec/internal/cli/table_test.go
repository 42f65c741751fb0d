package cli

import (
	"strings"
	"testing"
	"time"
)

// Two players at a table, each with their own CLI, against one served
// recorder: Alice's digital roll records the request, contributes and
// waits; Bob's 'seed --follow', running beside the table, contributes;
// Alice's roll returns with the dice. Later Bob withholds (no follow):
// Alice's wait ends naming him, the match takes nothing else, and the
// judge substitutes the judge's own contribution, which draws the dice.
func TestDigitalDiceAtTheTable(t *testing.T) {
	dir := t.TempDir()
	startServe(t, dir)
	keys, _ := signedMatch(t, dir, "table")
	alice, bob := keys["player:alice"], keys["player:bob"]
	for _, c := range [][]string{{"--type", "next-turn"}, {"--type", "phase", "--phase", "shooting"}, {"--type", "shoot", "--unit", "tac", "--target", "boyz"}} {
		mustRun(t, dir, append([]string{"declare", "table", "--key", alice}, c...)...)
	}
	follow := make(chan string, 1)
	go func() {
		// Bob's follower ends with the match, or with its deadline.
		_, out, _ := run(t, dir, "seed", "table", "--key", bob, "--follow")
		follow <- out
	}()
	out := mustRun(t, dir, "roll", "table", "--key", alice, "--digital")
	if !strings.Contains(out, "Alice rolls 9 D6 to hit") || !strings.Contains(out, "[digital]") {
		t.Fatalf("alice's roll did not come back with its dice:\n%s", out)
	}
	// The judge ends the match: Bob's follower stops with it.
	code, _, errs := run(t, dir, "declare", "table", "--key", keys["judge"], "--type", "end", "--winner", "alice", "--reason", "time")
	if code != 0 {
		t.Fatalf("the judge's end: %s", errs)
	}
	select {
	case got := <-follow:
		if !strings.Contains(got, "Alice rolls 9 D6 to hit") {
			t.Fatalf("bob's follower:\n%s", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("bob's follower did not stop when the match ended")
	}

	// Bob withholds: the judge substitutes.
	keys, _ = signedMatch(t, dir, "table-2")
	alice = keys["player:alice"]
	for _, c := range [][]string{{"--type", "next-turn"}, {"--type", "phase", "--phase", "shooting"}, {"--type", "shoot", "--unit", "tac", "--target", "boyz"}} {
		mustRun(t, dir, append([]string{"declare", "table-2", "--key", alice}, c...)...)
	}
	code, _, errs = run(t, dir, "roll", "table-2", "--key", alice, "--digital", "--wait", "1s")
	if code != ExitRefused || !strings.Contains(errs, "contribution_pending") || !strings.Contains(errs, "player:bob") {
		t.Fatalf("a withheld contribution: exit %d %s", code, errs)
	}
	code, _, errs = run(t, dir, "declare", "table-2", "--key", alice, "--type", "next-turn")
	if code != ExitRefused || !strings.Contains(errs, "contribution_pending") {
		t.Fatalf("a command while the roll waits: exit %d %s", code, errs)
	}
	out = mustRun(t, dir, "declare", "table-2", "--key", keys["judge"], "--type", "substitute", "--role", "player:bob", "--reason", "did not contribute")
	if !strings.Contains(out, "Alice rolls 9 D6 to hit") {
		t.Fatalf("the judge's substitution did not draw the dice:\n%s", out)
	}
	if out := mustRun(t, dir, "audit", "table-2"); !strings.Contains(out, "verdict: CLEAN") {
		t.Fatalf("audit after a substitution:\n%s", out)
	}
}
