//! Agent names: parsing `"random"`, `"greedy"`, `"search:3"`, … and building agents.

use std::fmt;
use std::str::FromStr;

use super::{eval::EvalWeights, greedy::Greedy, pimc::Pimc, random::RandomAgent, search::{Search, Worlds}, Agent};

/// A refusal of an agent name, with a clear message.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// No agent has this name.
    #[error("unknown agent {0:?}: expected \"random\", \"greedy\", \"search\" or \"pimc\" (e.g. \"search:3\", \"search:iters=2000\", \"search:ms=500,threads=2\", \"pimc:1\")")]
    Unknown(String),
    /// A search level outside 1..=5.
    #[error("search level {0:?} is out of range: levels are 1 to 5")]
    Level(String),
    /// A budget that is not a positive integer (or too large).
    #[error("bad search budget {0:?}: expected iters=N or ms=N with N a whole number from 1 to 1000000000")]
    Budget(String),
    /// A thread count that is not a positive integer up to 256.
    #[error("bad thread count {0:?}: expected threads=N with N from 1 to 256")]
    Threads(String),
    /// An option the agent does not take.
    #[error("unknown agent option {0:?}: search and pimc take a level (1-5), iters=N, ms=N, threads=N, beliefs=modelled|plain and eval=fitted|derived; greedy takes eval=fitted|derived; random takes none")]
    Option(String),
}

/// The kind of each refusal (docs/errors.md; the table is [`crate::ErrorKind`]'s).
impl crate::error::Error for AgentError {
    fn kind(&self) -> crate::ErrorKind {
        use crate::ErrorKind;
        match self {
            AgentError::Unknown(_) | AgentError::Option(_) => ErrorKind::UnknownName,
            AgentError::Level(_) | AgentError::Budget(_) | AgentError::Threads(_) => ErrorKind::OutOfRange,
        }
    }
}

impl fmt::Debug for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A search budget per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Budget {
    /// A named level, 1..=5 (see [`Budget::level_iterations`] for `search`,
    /// [`Budget::level_playouts`] for `pimc`).
    Level(u8),
    /// A number of iterations (`search`) or playouts (`pimc`) per move (deterministic
    /// for a seed and thread count).
    Iterations(u32),
    /// A time per move in milliseconds (not deterministic: depends on the machine).
    Millis(u32),
}

impl Budget {
    /// The iterations a level stands for in `search` (the tree search): 16 000 at
    /// level 1, each level doubling the one below (level 1 is about a quarter of a
    /// second a move on one core in classic mid-game, see docs/agents.md). Levels
    /// outside 1..=5 are read as the nearest.
    pub const fn level_iterations(level: u8) -> u32 {
        super::search::LEVEL1 << (clamp_level(level) - 1)
    }

    /// The playouts a level stands for in `pimc`: 36 000 at level 1, each level
    /// doubling the one below (the levels `search` had before the tree search took its
    /// name, kept so that measurements stay comparable).
    pub const fn level_playouts(level: u8) -> u32 {
        super::pimc::LEVEL1 << (clamp_level(level) - 1)
    }

    /// The time a level is meant to think a move where time is the budget (a referee
    /// with a clock, the web's bots): 250 ms at level 1, doubling to 4 s at level 5 —
    /// about what [`Budget::level_iterations`] takes on one core in classic.
    pub const fn level_millis(level: u8) -> u32 {
        250 << (clamp_level(level) - 1)
    }
}

/// A level brought into 1..=5.
const fn clamp_level(level: u8) -> u8 {
    if level < 1 {
        1
    } else if level > 5 {
        5
    } else {
        level
    }
}

/// A parsed agent name: `"random"` | `"greedy"` | `"search"` (= `search:3`) |
/// `"search:1"`..`"search:5"` | `"search:iters=N"` | `"search:ms=N"` (a time budget, not
/// deterministic), with an optional `",threads=N"` (default 1), e.g. `"search:4,threads=2"`,
/// `",beliefs=plain"` (worlds drawn from the plain beliefs instead of by the opponent
/// model) and `",eval=derived"` (the evaluation's weights worked out from the rules
/// instead of the fitted ones the engine ships); `"pimc"` (the search by
/// determinization that `search` replaced, the reference it is measured against) takes
/// the same, `"greedy"` takes `eval=` (`"greedy:eval=derived"`). `"ismcts"` is another
/// name for `"search"`. [`FromStr`] and [`Display`](fmt::Display) round-trip.
///
/// ```
/// use junqi::AgentSpec;
/// let spec: AgentSpec = "search:4,threads=2".parse().unwrap();
/// assert_eq!(spec.to_string(), "search:4,threads=2");
/// assert_eq!("search".parse::<AgentSpec>().unwrap().to_string(), "search:3");
/// assert_eq!("ismcts:iters=500".parse::<AgentSpec>().unwrap().to_string(), "search:iters=500");
/// assert_eq!("pimc:1,beliefs=plain".parse::<AgentSpec>().unwrap().to_string(), "pimc:1,beliefs=plain");
/// assert!("search:9".parse::<AgentSpec>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgentSpec {
    /// Uniformly random legal actions and random legal setups.
    Random,
    /// One ply ahead with a static evaluation of the beliefs.
    Greedy {
        /// The evaluation's weights (`eval=fitted`, the default, or `eval=derived`).
        eval: EvalWeights,
    },
    /// Information-set Monte Carlo tree search (`"search"`, `"search:2"`,
    /// `"search:ms=500,threads=2,beliefs=plain"`; `"ismcts"` is another name).
    Search {
        /// The budget per move (levels: [`Budget::level_iterations`]).
        budget: Budget,
        /// Threads to search with (1 by default): one tree each, root visits summed.
        threads: u16,
        /// Which beliefs its worlds are drawn from (`beliefs=modelled`, the default, or
        /// `beliefs=plain`).
        worlds: Worlds,
        /// The evaluation's weights (`eval=fitted`, the default, or `eval=derived`).
        eval: EvalWeights,
    },
    /// Perfect-information Monte Carlo over armies sampled from the beliefs (`"pimc"`,
    /// `"pimc:1"`): the engine's search before the tree search, kept as the reference.
    Pimc {
        /// The budget per move (levels: [`Budget::level_playouts`]).
        budget: Budget,
        /// Threads to search with (1 by default).
        threads: u16,
        /// Which beliefs its armies are drawn from (`beliefs=modelled`, the default, or
        /// `beliefs=plain`: the search as it was before the opponent model).
        worlds: Worlds,
        /// The evaluation's weights (`eval=fitted`, the default, or `eval=derived`).
        eval: EvalWeights,
    },
}

impl FromStr for AgentSpec {
    type Err = AgentError;

    fn from_str(text: &str) -> Result<AgentSpec, AgentError> {
        let t = text.trim();
        let (name, opts) = match t.split_once(':') {
            Some((n, o)) => (n.trim(), Some(o)),
            None => (t, None),
        };
        match name.to_ascii_lowercase().as_str() {
            "random" => match opts {
                Some(o) => Err(AgentError::Option(o.to_owned())),
                None => Ok(AgentSpec::Random),
            },
            "greedy" => {
                let mut eval = EvalWeights::Fitted;
                for part in opts.into_iter().flat_map(|o| o.split(',')) {
                    eval = eval_option(part.trim()).ok_or_else(|| AgentError::Option(part.trim().to_owned()))?;
                }
                Ok(AgentSpec::Greedy { eval })
            }
            n @ ("search" | "ismcts" | "pimc") => {
                let mut budget = None;
                let mut threads = 1u16;
                let mut worlds = Worlds::Modelled;
                let mut eval = EvalWeights::Fitted;
                for part in opts.into_iter().flat_map(|o| o.split(',')) {
                    let part = part.trim();
                    let (key, value) = match part.split_once('=') {
                        Some((k, v)) => (k.trim(), Some(v.trim())),
                        None => ("level", Some(part)),
                    };
                    let number = |v: Option<&str>| v.and_then(|v| v.parse::<u64>().ok());
                    match key {
                        "level" => {
                            let l = number(value).filter(|l| (1..=5).contains(l)).ok_or_else(|| AgentError::Level(part.to_owned()))?;
                            budget = Some(Budget::Level(l as u8));
                        }
                        "iters" | "ms" => {
                            let n = number(value)
                                .filter(|n| (1..=1_000_000_000).contains(n))
                                .ok_or_else(|| AgentError::Budget(part.to_owned()))? as u32;
                            budget = Some(if key == "ms" { Budget::Millis(n) } else { Budget::Iterations(n) });
                        }
                        "threads" => {
                            threads = number(value)
                                .filter(|n| (1..=256).contains(n))
                                .ok_or_else(|| AgentError::Threads(part.to_owned()))? as u16;
                        }
                        "beliefs" if value == Some("modelled") => worlds = Worlds::Modelled,
                        "beliefs" if value == Some("plain") => worlds = Worlds::Plain,
                        "eval" => eval = eval_option(part).ok_or_else(|| AgentError::Option(part.to_owned()))?,
                        _ => return Err(AgentError::Option(part.to_owned())),
                    }
                }
                let budget = budget.unwrap_or(Budget::Level(3));
                Ok(if n == "pimc" { AgentSpec::Pimc { budget, threads, worlds, eval } } else { AgentSpec::Search { budget, threads, worlds, eval } })
            }
            _ => Err(AgentError::Unknown(text.to_owned())),
        }
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => f.write_str("random"),
            AgentSpec::Greedy { eval: EvalWeights::Fitted } => f.write_str("greedy"),
            AgentSpec::Greedy { eval: EvalWeights::Derived } => f.write_str("greedy:eval=derived"),
            AgentSpec::Search { budget, threads, .. } | AgentSpec::Pimc { budget, threads, .. } => {
                let name = if matches!(self, AgentSpec::Search { .. }) { "search" } else { "pimc" };
                match budget {
                    Budget::Level(l) => write!(f, "{name}:{l}")?,
                    Budget::Iterations(n) => write!(f, "{name}:iters={n}")?,
                    Budget::Millis(n) => write!(f, "{name}:ms={n}")?,
                }
                if *threads != 1 {
                    write!(f, ",threads={threads}")?;
                }
                if let AgentSpec::Search { worlds: Worlds::Plain, .. } | AgentSpec::Pimc { worlds: Worlds::Plain, .. } = self {
                    f.write_str(",beliefs=plain")?;
                }
                if let AgentSpec::Search { eval: EvalWeights::Derived, .. } | AgentSpec::Pimc { eval: EvalWeights::Derived, .. } = self {
                    f.write_str(",eval=derived")?;
                }
                Ok(())
            }
        }
    }
}

impl AgentSpec {
    /// `"greedy"`: the greedy agent with the fitted weights.
    pub const GREEDY: AgentSpec = AgentSpec::Greedy { eval: EvalWeights::Fitted };

    /// Builds the agent; the same seed gives the same choices (for budgets in
    /// iterations or levels).
    pub fn build(&self, seed: u64) -> Box<dyn Agent> {
        match *self {
            AgentSpec::Random => Box::new(RandomAgent::new(seed)),
            AgentSpec::Greedy { eval } => Box::new(Greedy::new(seed).with_eval(eval)),
            AgentSpec::Search { budget, threads, worlds, eval } => Box::new(Search::new(budget, threads as usize, worlds, seed).with_eval(eval)),
            AgentSpec::Pimc { budget, threads, worlds, eval } => {
                Box::new(Pimc::new(budget, threads as usize, seed).with_worlds(worlds).with_eval(eval))
            }
        }
    }

    /// The budget per move of a searching agent (`None` for `random` and `greedy`).
    pub fn budget(&self) -> Option<Budget> {
        match *self {
            AgentSpec::Search { budget, .. } | AgentSpec::Pimc { budget, .. } => Some(budget),
            AgentSpec::Random | AgentSpec::Greedy { .. } => None,
        }
    }

    /// The same agent with another budget per move (`random` and `greedy` unchanged).
    pub fn with_budget(self, budget: Budget) -> AgentSpec {
        match self {
            AgentSpec::Search { threads, worlds, eval, .. } => AgentSpec::Search { budget, threads, worlds, eval },
            AgentSpec::Pimc { threads, worlds, eval, .. } => AgentSpec::Pimc { budget, threads, worlds, eval },
            other => other,
        }
    }
}

/// `eval=fitted` or `eval=derived`.
fn eval_option(part: &str) -> Option<EvalWeights> {
    match part.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
        Some(("eval", "fitted")) => Some(EvalWeights::Fitted),
        Some(("eval", "derived")) => Some(EvalWeights::Derived),
        _ => None,
    }
}

/// Shorthand: `spec.parse::<AgentSpec>()?.build(seed)`.
///
/// ```
/// let agent = junqi::agent::by_name("greedy", 7).unwrap();
/// assert_eq!(agent.name(), "greedy");
/// assert!(junqi::agent::by_name("grandmaster", 7).is_err());
/// ```
pub fn by_name(spec: &str, seed: u64) -> Result<Box<dyn Agent>, AgentError> {
    Ok(spec.parse::<AgentSpec>()?.build(seed))
}
