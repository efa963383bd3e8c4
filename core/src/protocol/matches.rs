//! Paired matches between two engines, as fishtest and cutechess-cli run them: every
//! seed is played twice, the engines trading seats (teams) — the same deal, the same
//! random setups, and each seat's engine told the same `seed` in both games
//! ([`super::referee::engine_seed`]), so that two copies of one engine play the same
//! game twice and every pair is a different game — several games at once; W/D/L, the
//! pairs' pentanomial counts, Elo from the pairs and an SPRT verdict.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::referee::{play_with, EngineProcess, Failure, Played, Refereeing, TimeControl};
use super::stats::{sprt_bounds, sprt_verdict, Pentanomial, Tally};
use crate::{RuleSet, Side};

/// A named engine command (`NAME=CMD`).
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// The name in reports.
    pub name: String,
    /// The shell command that starts it.
    pub command: String,
    /// Options to set (`setoption`), by name.
    pub options: Vec<(String, String)>,
}

/// What a match runs.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    /// The rule set.
    pub rules: Arc<RuleSet>,
    /// The two engines.
    pub engines: [EngineSpec; 2],
    /// Games in all (rounded up to pairs).
    pub games: usize,
    /// Time budget per answer (deployments; actions and draw answers without a game
    /// clock).
    pub budget: Duration,
    /// A game clock (`--time-control 60+1`), if any: actions and draw answers run on it.
    pub clock: Option<TimeControl>,
    /// Games at once.
    pub concurrency: usize,
    /// Plies after which a game is stopped and scored a draw.
    pub max_plies: u32,
    /// The first pair's seed (pair `i` plays seed `seed + i`): the referee's secret,
    /// from which the 翻棋 deal and random setups are drawn (`junqi match` takes it
    /// from the operating system unless given `--seed`).
    pub seed: u64,
    /// Elo bounds of an SPRT, if asked.
    pub sprt: Option<(f64, f64)>,
    /// Where to write the records.
    pub out: Option<PathBuf>,
}

/// One finished game of a match.
#[derive(Debug)]
pub struct GameSummary {
    /// Its index (pair `index / 2`).
    pub index: usize,
    /// The engine (0 or 1) on the first team (the team of the rule set's first side).
    pub first: usize,
    /// The first engine's score: 1, 0.5 or 0.
    pub score: f64,
    /// Why it ended.
    pub reason: String,
}

/// The engine playing each seat of game `index`: engine `first` takes the team of the
/// first side, the other engine the rest.
fn seat_engines(rules: &RuleSet, first: usize) -> Vec<usize> {
    let team = rules.team_of(rules.sides()[0]);
    rules.sides().iter().map(|s| if team.contains(*s) { first } else { 1 - first }).collect()
}

fn play_one(spec: &MatchSpec, index: usize) -> (GameSummary, Option<Played>) {
    let first = index % 2;
    let seed = spec.seed + (index / 2) as u64;
    let owners = seat_engines(&spec.rules, first);
    let sides = spec.rules.sides().to_vec();
    let mut seats = Vec::new();
    for (i, &o) in owners.iter().enumerate() {
        let e = &spec.engines[o];
        match EngineProcess::start(&e.command, spec.budget.max(Duration::from_secs(2)), &e.options) {
            Ok(p) => seats.push(p),
            Err(f) => {
                // An engine that does not start loses the game.
                let score = if o == 0 { 0.0 } else { 1.0 };
                let reason = format!("{} by {} ({f})", f.name(), sides[i]);
                return (GameSummary { index, first, score, reason }, None);
            }
        }
    }
    let how = Refereeing { budget: spec.budget, clock: spec.clock, max_plies: spec.max_plies };
    let played = play_with(spec.rules.clone(), seed, &mut seats, &how);
    for s in seats {
        s.stop();
    }
    let winners = played.winners();
    let score = if winners.is_empty() {
        0.5
    } else if winners.iter().any(|w| owners[sides.iter().position(|s| s == w).expect("a winner plays")] == 0) {
        1.0
    } else {
        0.0
    };
    (GameSummary { index, first, score, reason: played.reason() }, Some(played))
}

fn write_records(dir: &std::path::Path, index: usize, played: &Played) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(format!("game-{index:04}.json")), played.game.record().to_json())?;
    for &s in played.game.rules().sides() {
        let name = format!("game-{index:04}-{}.json", s.name());
        std::fs::write(dir.join(name), played.game.player_record(s).to_json())?;
    }
    Ok(())
}

/// The result of a match.
#[derive(Debug, Default)]
pub struct MatchResult {
    /// Every game, in index order.
    pub games: Vec<GameSummary>,
    /// W/D/L of the first engine.
    pub tally: Tally,
    /// The pairs both of whose games are over, by the first engine's points.
    pub pairs: Pentanomial,
}

impl MatchResult {
    /// The report printed at the end: W/D/L, the pairs, Elo ± interval, SPRT verdict.
    pub fn report(&self, spec: &MatchSpec) -> String {
        let t = self.tally;
        let [a, b] = [&spec.engines[0].name, &spec.engines[1].name];
        let mut out =
            format!("{a} vs {b}: {} games, W/D/L {}/{}/{} (score {:.1}%)\n", t.games(), t.wins, t.draws, t.losses, t.percent());
        let [l2, l1, even, w1, w2] = self.pairs.counts;
        out += &format!(
            "pairs by {a}'s points: 0: {l2}, 0.5: {l1}, 1: {even}, 1.5: {w1}, 2: {w2} ({} pairs)\n",
            self.pairs.pairs()
        );
        match self.pairs.elo() {
            Some((e, lo, hi)) => out += &format!("Elo {a} - {b}: {e:+.1} (95% interval {lo:+.1} .. {hi:+.1}, from the pairs)\n"),
            None if self.pairs.pairs() == 0 => out += "Elo: not estimable yet (no pair played)\n",
            None => out += "Elo: not estimable (every pair had the same result: no spread to measure)\n",
        }
        if let Some((e0, e1)) = spec.sprt {
            let llr = self.pairs.llr(e0, e1);
            let (lo, hi) = sprt_bounds();
            out += &format!(
                "SPRT elo0={e0} elo1={e1} alpha=beta=0.05 (pentanomial): LLR {llr:.2} (bounds {lo:.2} .. {hi:.2}): {}\n",
                sprt_verdict(llr)
            );
        }
        out
    }

    /// Counts game `g`: its score, and its pair's when both of the pair's games are
    /// in.
    fn add(&mut self, g: GameSummary) {
        self.tally.add(g.score);
        if let Some(other) = self.games.iter().find(|o| o.index / 2 == g.index / 2) {
            self.pairs.add(other.score, g.score);
        }
        self.games.push(g);
    }
}

/// Runs a match; `progress` is called after each game (in finishing order) with the
/// result so far. With an SPRT, the match stops once a verdict is reached on the
/// pairs complete so far (the games already started are played out and counted).
pub fn run(spec: &MatchSpec, progress: &(dyn Fn(&GameSummary, &MatchResult) + Sync)) -> std::io::Result<MatchResult> {
    let total = spec.games.div_ceil(2) * 2;
    let next = AtomicUsize::new(0);
    let result = Mutex::new(MatchResult::default());
    let io_error = Mutex::new(None);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..spec.concurrency.max(1) {
            scope.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return;
                }
                let (summary, played) = play_one(spec, i);
                if let (Some(dir), Some(p)) = (&spec.out, &played) {
                    if let Err(e) = write_records(dir, i, p) {
                        *io_error.lock().expect("no panic holds it") = Some(e);
                    }
                }
                let mut r = result.lock().expect("no panic holds it");
                let index = summary.index;
                r.add(summary);
                let g = r.games.iter().find(|g| g.index == index).expect("just added");
                progress(g, &r);
                if let Some((e0, e1)) = spec.sprt {
                    if sprt_verdict(r.pairs.llr(e0, e1)) != "continue" {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    if let Some(e) = io_error.into_inner().expect("no panic holds it") {
        return Err(e);
    }
    let mut r = result.into_inner().expect("no panic holds it");
    r.games.sort_by_key(|g| g.index);
    Ok(r)
}

/// Keeps `Failure` and `Side` in this module's public vocabulary for callers.
pub type SeatFailure = (Side, Failure);
