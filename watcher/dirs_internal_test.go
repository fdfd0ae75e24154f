package watcher

import "testing"

func TestDirTable_RefcountsSharedDirectories(t *testing.T) {
	t.Parallel()
	tbl := newDirTable()
	a, b := interest{"/cfg", "a.json"}, interest{"/cfg", "b.json"}

	tbl.acquire(a, "/cfg/a.json")
	tbl.acquire(b, "/cfg/b.json")
	tbl.acquire(a, "/cfg/a.json") // idempotent per (path, interest)
	if got := tbl.byDir["/cfg"].refs; got != 2 {
		t.Fatalf("refs = %d, want 2", got)
	}
	if _, ok := tbl.unarmed["/cfg"]; !ok {
		t.Fatal("a new directory must be queued for Add")
	}
	tbl.byDir["/cfg"].armed = true
	delete(tbl.unarmed, "/cfg")

	if subs := tbl.subscribersOf("/cfg", "b.json"); len(subs) != 1 {
		t.Errorf("subscribers of b.json = %v", subs)
	}
	if subs := tbl.subscribersOf("/cfg", "other"); len(subs) != 0 {
		t.Errorf("subscribers of an unrelated entry = %v", subs)
	}

	if unused, _ := tbl.release(a, "/cfg/a.json"); unused {
		t.Fatal("released a directory b.json still needs")
	}
	if unused, _ := tbl.release(a, "/cfg/a.json"); unused {
		t.Fatal("a second release of the same interest must be a no-op")
	}
	unused, armed := tbl.release(b, "/cfg/b.json")
	if !unused || !armed {
		t.Fatalf("last release = (unused %v, armed %v), want (true, true)", unused, armed)
	}
	if len(tbl.byDir) != 0 || len(tbl.unarmed) != 0 {
		t.Errorf("table not empty after the last release: %v %v", tbl.byDir, tbl.unarmed)
	}
}

func TestDirTable_DisarmQueuesAFreshAdd(t *testing.T) {
	t.Parallel()
	tbl := newDirTable()
	i := interest{"/cfg", "a.json"}
	tbl.acquire(i, "/cfg/a.json")
	tbl.byDir["/cfg"].armed = true
	delete(tbl.unarmed, "/cfg")
	if !tbl.settled([]interest{i}) {
		t.Fatal("armed plan reported unsettled")
	}

	if !tbl.disarm("/cfg") {
		t.Fatal("disarm did not find the directory")
	}
	if tbl.settled([]interest{i}) {
		t.Error("a disarmed directory must make the plan unsettled")
	}
	if got := tbl.usersOf("/cfg"); len(got) != 1 || got[0] != "/cfg/a.json" {
		t.Errorf("usersOf = %v", got)
	}
	if tbl.disarm("/elsewhere") {
		t.Error("disarm of an unwatched directory reported success")
	}
}
