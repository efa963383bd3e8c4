//! The runner of `scripts/soak`: the random games of one variant spread over threads.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// What the soak of one variant covered.
#[derive(Default)]
pub struct Covered {
    /// Swaps checked (pairs of games compared ply by ply).
    pub swaps: usize,
    /// Plies (or actions) played in the random games.
    pub plies: u64,
}

/// Reads `name` from the environment as a number, or `default`.
pub fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Runs `check(seed)` → (swaps checked, plies) for the seeds `first..first + games` on
/// `JUNQI_SOAK_THREADS` threads (default: every core), with progress on stderr every
/// 500 games. Totals do not depend on the thread count. A failing game stops the run and
/// names its seed (its assertion message is printed above by the panic hook).
pub fn run(label: &str, games: u64, first: u64, check: impl Fn(u64) -> (usize, u64) + Sync) -> Covered {
    let threads = env("JUNQI_SOAK_THREADS", std::thread::available_parallelism().map_or(1, |n| n.get() as u64)).max(1);
    let start = Instant::now();
    let (next, done) = (AtomicU64::new(0), AtomicU64::new(0));
    let (swaps, plies) = (AtomicUsize::new(0), AtomicU64::new(0));
    let stop = AtomicBool::new(false);
    let failed = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let g = next.fetch_add(1, Ordering::Relaxed);
                if g >= games || stop.load(Ordering::Relaxed) {
                    break;
                }
                let seed = first + g;
                match catch_unwind(AssertUnwindSafe(|| check(seed))) {
                    Ok((n, p)) => {
                        swaps.fetch_add(n, Ordering::Relaxed);
                        plies.fetch_add(p, Ordering::Relaxed);
                    }
                    Err(_) => {
                        stop.store(true, Ordering::Relaxed);
                        failed.lock().unwrap().get_or_insert(seed);
                        break;
                    }
                }
                let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                if finished % 500 == 0 {
                    eprintln!(
                        "[soak] {label}: {finished}/{games} games, {} swaps checked, {:.0} s",
                        swaps.load(Ordering::Relaxed),
                        start.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    if let Some(seed) = failed.into_inner().unwrap() {
        panic!("[soak] {label}: failed on seed {seed} (see above)");
    }
    let covered = Covered { swaps: swaps.into_inner(), plies: plies.into_inner() };
    println!(
        "[soak] {label}: {games} games (seeds {first}..{}), {} plies, {} swaps checked, no difference, {:.0} s on {threads} threads",
        first + games,
        covered.plies,
        covered.swaps,
        start.elapsed().as_secs_f64()
    );
    covered
}
