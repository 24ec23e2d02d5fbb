//! The Go the toy's steps stand for (Go's `sync.Mutex` and a counter).

use crate::engine::GoFn;

pub const LOCK: GoFn = GoFn {
    file: "sync/mutex.go",
    func: "Mutex.Lock",
    excerpt: "Takes the mutex, or blocks until its holder unlocks it. Which waiter gets it then is up to the scheduler: sync.Mutex is not first-come first-served.",
};

pub const UNLOCK: GoFn = GoFn {
    file: "sync/mutex.go",
    func: "Mutex.Unlock",
    excerpt:
        "Releases the mutex. Unlocking a mutex nobody holds is a fatal error: the process exits.",
};

pub const INCR: GoFn = GoFn {
    file: "toy.go",
    func: "incr",
    excerpt: "x := counter, then counter = x + 1: two accesses to shared memory, and another goroutine may run between them unless a lock keeps it out.",
};

pub const ACTOR: GoFn = GoFn {
    file: "scenario",
    func: "actor",
    excerpt: "An actor of the scenario runs its ops in order, as a goroutine.",
};

pub const PANIC: GoFn = GoFn {
    file: "runtime",
    func: "panic",
    excerpt: "The process exits: a Go panic or fatal error nothing recovers.",
};
