//! Deployment: a side's setup (point → kind), its validation and random setups.
//!
//! A [`Setup`] is what a user wrote — not yet checked. [`Setup::validate`] turns it into
//! a [`Deployment`] or says exactly what is wrong, as a [`SetupError`].

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::board::{Board, Point, PointSet, Role};
use crate::piece::{PieceKind, Side};
use crate::rng::KeyedRng;
use crate::rules::{Constraint, RuleSet};

/// One side's deployment as written by a user: point names mapped to kind names.
///
/// In JSON it is an object, `{"a1": "flag", "b1": "mine", …}`; kinds may be given by
/// id or Chinese name. Nothing is checked until [`Setup::validate`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    placements: Vec<(String, String)>,
}

/// A validated deployment of one side: every piece on its point, sorted by point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deployment {
    side: Side,
    pieces: Vec<(Point, PieceKind)>,
}

/// Why a setup is not a legal deployment.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The JSON text could not be read.
    #[error("invalid setup JSON: {0}")]
    Json(String),
    /// A point name is not on the board.
    #[error("unknown point {0:?}")]
    UnknownPoint(String),
    /// A kind name is not a piece kind.
    #[error("unknown piece kind {0:?} (expected an id such as \"engineer\" or a Chinese name such as \"工兵\")")]
    UnknownKind(String),
    /// A kind that this rule set's army does not have.
    #[error("{kind} is not part of the {rules} army")]
    KindNotInRuleSet {
        /// The kind.
        kind: PieceKind,
        /// The rule set's name.
        rules: String,
    },
    /// The same point is given twice.
    #[error("point {0} is given more than once")]
    PointTwice(String),
    /// A point outside the deploying side's half.
    #[error("{point} is outside {side}'s half")]
    OutsideHalf {
        /// The point.
        point: String,
        /// The deploying side.
        side: Side,
    },
    /// A point of the side's half where nothing starts (a camp, in `classic`).
    #[error("nothing may be deployed on {point}: it is a {role}, and {role}s start empty")]
    NotDeployable {
        /// The point.
        point: String,
        /// Its role.
        role: Role,
    },
    /// A kind on a point whose role the rules do not allow it.
    #[error("{kind} may not stand on {point} ({role}): {why}")]
    WrongRole {
        /// The kind.
        kind: PieceKind,
        /// The point.
        point: String,
        /// The point's role.
        role: Role,
        /// The rule.
        why: String,
    },
    /// A kind too far from (or too near to) its side's back row.
    #[error("{kind} may not stand on {point} (row {depth} from the back): {why}")]
    WrongRow {
        /// The kind.
        kind: PieceKind,
        /// The point.
        point: String,
        /// The point's row counted from the side's back row.
        depth: u8,
        /// The rule.
        why: String,
    },
    /// A kind placed a wrong number of times.
    #[error("{kind}: {found} placed, the army has {expected}")]
    WrongCount {
        /// The kind.
        kind: PieceKind,
        /// How many the army has.
        expected: u8,
        /// How many the setup places.
        found: u8,
    },
    /// No setup satisfies the rule set's deployment constraints (a broken custom rule
    /// set).
    #[error("no setup satisfies the deployment constraints of {0}")]
    Unsatisfiable(String),
    /// A deal (翻棋) leaves a point that must hold a piece empty.
    #[error("the deal leaves {0} empty: every point outside the camps holds a piece")]
    PointLeftEmpty(String),
    /// A deal given for a rule set that deploys instead.
    #[error("rule set {0} does not deal face down: its sides deploy")]
    NotDealt(String),
    /// The side is not one of this rule set's sides.
    #[error("{side} does not play in {rules}")]
    NoSuchSide {
        /// The side.
        side: Side,
        /// The rule set's name.
        rules: String,
    },
    /// The JSON text is longer than [`crate::limits::MAX_SETUP_JSON`] bytes.
    #[error("setup JSON of {0} bytes is over the limit of {max} bytes", max = crate::limits::MAX_SETUP_JSON)]
    TooLarge(usize),
}

impl Setup {
    /// An empty setup.
    pub fn new() -> Setup {
        Setup::default()
    }

    /// Adds a placement (point name, kind name). Later checks report duplicates.
    pub fn place(&mut self, point: impl Into<String>, kind: impl Into<String>) -> &mut Setup {
        self.placements.push((point.into(), kind.into()));
        self
    }

    /// The placements as written.
    pub fn placements(&self) -> &[(String, String)] {
        &self.placements
    }

    /// Reads a setup from a JSON object `{"a1": "flag", …}`.
    pub fn from_json(json: &str) -> Result<Setup, SetupError> {
        if json.len() > crate::limits::MAX_SETUP_JSON {
            return Err(SetupError::TooLarge(json.len()));
        }
        serde_json::from_str(json).map_err(|e| SetupError::Json(e.to_string()))
    }

    /// The setup as a JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a setup serialises")
    }

    /// Checks the setup against a rule set for one side.
    ///
    /// ```
    /// use junqi::{RuleSet, Setup, SetupError, Side};
    /// let rules = RuleSet::preset("classic").unwrap();
    /// let mut setup = Setup::random(&rules, Side::South, 1);
    /// assert!(setup.validate(&rules, Side::South).is_ok());
    /// setup.place("c4", "engineer");
    /// let err = setup.validate(&rules, Side::South).unwrap_err();
    /// assert!(matches!(err, SetupError::NotDeployable { .. }));
    /// ```
    pub fn validate(&self, rules: &RuleSet, side: Side) -> Result<Deployment, SetupError> {
        if !rules.sides().contains(&side) {
            return Err(SetupError::NoSuchSide {
                side,
                rules: rules.name().to_owned(),
            });
        }
        let board = rules.board();
        let mut pieces = Vec::with_capacity(self.placements.len());
        let mut used = [false; crate::board::MAX_POINTS];
        let mut counts = [0u8; PieceKind::COUNT];
        for (pname, kname) in &self.placements {
            let point = board
                .point(pname)
                .ok_or_else(|| SetupError::UnknownPoint(pname.clone()))?;
            // The point's own name, for the errors (only made when one is).
            let pname = || board.name_of(point).to_owned();
            let kind =
                PieceKind::from_name(kname).ok_or_else(|| SetupError::UnknownKind(kname.clone()))?;
            if !rules.has_kind(kind) {
                return Err(SetupError::KindNotInRuleSet {
                    kind,
                    rules: rules.name().to_owned(),
                });
            }
            if std::mem::replace(&mut used[point.index()], true) {
                return Err(SetupError::PointTwice(pname()));
            }
            if board.side_of(point) != Some(side) {
                return Err(SetupError::OutsideHalf { point: pname(), side });
            }
            let role = board.role(point);
            if !rules.spec().deployment.roles.contains(&role) {
                return Err(SetupError::NotDeployable { point: pname(), role });
            }
            for c in rules.spec().deployment.constraints.iter().filter(|c| c.kind == kind) {
                check_constraint(rules, c, point)?;
            }
            counts[kind as usize] = counts[kind as usize].saturating_add(1);
            pieces.push((point, kind));
        }
        let mut army = [0u8; PieceKind::COUNT];
        for (kind, n) in rules.army() {
            army[kind as usize] = n;
        }
        for kind in PieceKind::ALL {
            let expected = army[kind as usize];
            if counts[kind as usize] != expected {
                return Err(SetupError::WrongCount {
                    kind,
                    expected,
                    found: counts[kind as usize],
                });
            }
        }
        pieces.sort();
        Ok(Deployment { side, pieces })
    }

    /// A random legal setup for `side`, the same for the same seed.
    ///
    /// ```
    /// use junqi::{RuleSet, Setup, Side};
    /// let rules = RuleSet::preset("classic").unwrap();
    /// let a = Setup::random(&rules, Side::North, 42);
    /// assert_eq!(a, Setup::random(&rules, Side::North, 42));
    /// assert!(a.validate(&rules, Side::North).is_ok());
    /// ```
    pub fn random(rules: &RuleSet, side: Side, seed: u64) -> Setup {
        Deployment::random(rules, side, seed).to_setup(rules)
    }
}

pub(crate) fn check_constraint(rules: &RuleSet, c: &Constraint, point: Point) -> Result<(), SetupError> {
    let board = rules.board();
    if allows(board, c, point) {
        return Ok(());
    }
    let role = board.role(point);
    if let Some(roles) = &c.roles {
        if !roles.contains(&role) {
            return Err(SetupError::WrongRole {
                kind: c.kind,
                point: board.name_of(point).to_owned(),
                role,
                why: c.why.clone(),
            });
        }
    }
    let depth = board.depth(point);
    if c.max_depth.is_some_and(|m| depth > m) || c.min_depth.is_some_and(|m| depth < m) {
        return Err(SetupError::WrongRow {
            kind: c.kind,
            point: board.name_of(point).to_owned(),
            depth,
            why: c.why.clone(),
        });
    }
    Ok(())
}

/// Whether a constraint lets its kind stand on `point`: [`check_constraint`] without
/// saying why not (and so without allocating).
/// The order in which [`Deployment::try_random`] places an army on `points` (a side's
/// deployment points): each kind with its count and the points its constraints allow
/// (a constraint depends on the point alone), the kinds with the fewest such points
/// first. Worked out once per rule set.
pub(crate) fn deploy_plan(board: &Board, spec: &crate::rules::RuleSpec, points: &[Point]) -> Vec<(PieceKind, u8, PointSet)> {
    let constraints = &spec.deployment.constraints;
    let mut kinds: Vec<(usize, PieceKind, u8, PointSet)> = spec
        .army
        .iter()
        .map(|(&k, &n)| {
            let at: PointSet = points
                .iter()
                .copied()
                .filter(|&p| constraints.iter().filter(|c| c.kind == k).all(|c| allows(board, c, p)))
                .collect();
            (at.len(), k, n, at)
        })
        .collect();
    kinds.sort_by_key(|&(count, kind, n, _)| (count, kind, n));
    kinds.into_iter().map(|(_, k, n, at)| (k, n, at)).collect()
}

pub(crate) fn allows(board: &Board, c: &Constraint, point: Point) -> bool {
    let depth = board.depth(point);
    c.roles.as_ref().is_none_or(|roles| roles.contains(&board.role(point)))
        && c.max_depth.is_none_or(|m| depth <= m)
        && c.min_depth.is_none_or(|m| depth >= m)
}

impl Deployment {
    /// The deploying side.
    pub fn side(&self) -> Side {
        self.side
    }

    /// Every piece with its point, sorted by point.
    pub fn pieces(&self) -> &[(Point, PieceKind)] {
        &self.pieces
    }

    /// The deployment written back as a [`Setup`].
    pub fn to_setup(&self, rules: &RuleSet) -> Setup {
        Setup {
            placements: self
                .pieces
                .iter()
                .map(|(p, k)| (rules.board().name_of(*p).to_owned(), k.id().to_owned()))
                .collect(),
        }
    }

    /// A random legal deployment for `side`, the same for the same seed.
    ///
    /// Kinds are placed most-constrained first, each on a random free point it may
    /// stand on; in the unlikely case that leaves a kind nowhere to go, the draw is
    /// repeated with the generator's next numbers.
    ///
    /// # Panics
    /// If the rule set's constraints cannot be satisfied at all (a broken custom rule
    /// set: no built-in one is). [`Deployment::try_random`] returns `None` instead.
    pub fn random(rules: &RuleSet, side: Side, seed: u64) -> Deployment {
        Deployment::try_random(rules, side, seed).unwrap_or_else(|| {
            panic!("rule set {} has deployment constraints no setup satisfies", rules.name())
        })
    }

    /// Like [`Deployment::random`], but `None` if the constraints cannot be met (or the
    /// side does not play).
    pub fn try_random(rules: &RuleSet, side: Side, seed: u64) -> Option<Deployment> {
        if !rules.sides().contains(&side) {
            return None;
        }
        let points = rules.deploy_points(side);
        // Keyed: a player's own setup does not give the seed (and so the others') away.
        let mut rng = KeyedRng::new(seed, 0x5E70 + side as u64);
        let plan = rules.deploy_plan(side);
        let mut options: Vec<usize> = Vec::with_capacity(points.len());
        let mut free: Vec<Point> = Vec::with_capacity(points.len());
        for _attempt in 0..1000 {
            free.clear();
            free.extend_from_slice(points);
            let mut free_set: PointSet = points.iter().copied().collect();
            let mut pieces = Vec::with_capacity(points.len());
            let mut ok = true;
            'kinds: for &(kind, n, allowed) in plan {
                for _ in 0..n {
                    // The free points the kind may take, in the order of `free`; when it
                    // may take every one (a kind without constraints), their indices
                    // are simply 0..free.len().
                    let i = if free_set.minus(allowed).is_empty() {
                        if free.is_empty() {
                            ok = false;
                            break 'kinds;
                        }
                        rng.below(free.len())
                    } else {
                        options.clear();
                        options.extend((0..free.len()).filter(|&i| allowed.contains(free[i])));
                        if options.is_empty() {
                            ok = false;
                            break 'kinds;
                        }
                        options[rng.below(options.len())]
                    };
                    let p = free.swap_remove(i);
                    free_set.remove(p);
                    pieces.push((p, kind));
                }
            }
            if ok {
                pieces.sort();
                return Some(Deployment { side, pieces });
            }
        }
        None
    }
}

impl Serialize for Setup {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.placements.len()))?;
        for (p, k) in &self.placements {
            map.serialize_entry(p, k)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Setup {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Setup;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object mapping point names to piece kinds")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Setup, A::Error> {
                let mut placements = Vec::new();
                while let Some((p, k)) = map.next_entry::<String, String>()? {
                    placements.push((p, k));
                }
                Ok(Setup { placements })
            }
        }
        d.deserialize_map(V)
    }
}
