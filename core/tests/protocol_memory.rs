//! Bounded memory whatever an engine prints (docs/protocol.md, "Time, failures,
//! limits"). One test alone in its binary, so that the process's peak memory is this
//! test's: an engine floods 100 MB of `info` lines while the referee is not reading
//! (as when the other engine thinks), then answers.

use std::time::Duration;

use junqi::protocol::referee::EngineProcess;

/// The peak resident memory of this process, in kB (`VmHWM`).
fn peak_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn an_info_flood_while_the_referee_waits_stays_within_the_queue() {
    // 1 000 000 lines of 100 bytes, printed while the referee sleeps; then, asked to
    // deploy, the engine answers. Before, the lines went into an unbounded channel:
    // 100 MB of `option` lines took `junqi match` to 1.53 GB.
    let line = format!("info {}", "x".repeat(94));
    let flood = format!(
        "read l; echo ready; yes '{line}' | head -n 1000000; read l; echo 'setup random'"
    );
    let before = peak_kb();
    let mut e = EngineProcess::start(&flood, Duration::from_secs(5), &[]).unwrap();
    // The referee does not read for a while: the engine's output piles up.
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(e.ask("deploy 1000", "setup", Duration::from_secs(20)).unwrap(), "random");
    let grew = peak_kb().saturating_sub(before);
    // The queue holds at most 64 lines of at most 64 KiB: 4 MiB; 40 MB is the bound
    // stated in docs/protocol.md, with room for the allocator.
    assert!(grew < 40_000, "peak memory grew by {grew} kB");
    assert!(e.dropped_info() > 0, "the flood was dropped past the queue");
    e.stop();
}
