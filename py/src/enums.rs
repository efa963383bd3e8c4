//! The core's enums as Python enums: `Side`, `PieceKind`, `CombatOutcome`, `Attack`, `Phase`,
//! `EndReason`, `RevealCause`, `Arm`, `Ability`, `Role`, `EdgeKind`.
//!
//! Each is a real class with one attribute per member (`Side.SOUTH`), readable `repr`
//! (`Side.SOUTH`), `str` giving the snake_case id used in JSON (`"south"`), `.name`,
//! `.value`, `.id`, comparison with ints, hashing, and a constructor that accepts a
//! member, its id or name, or its value: `Side("north")`, `PieceKind("工兵")`.
//! Wherever the API expects one of these, a string is accepted too.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyType};

use crate::errors::exception;

macro_rules! py_enum {
    (
        $(#[$meta:meta])*
        $py:ident => $core:ident, $label:literal {
            $( $var:ident = $pyname:literal, $id:literal; )*
        }
        $( methods { $($extra:tt)* } )?
    ) => {
        $(#[$meta])*
        #[pyclass(eq, eq_int, frozen, module = "junqi._junqi")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $py {
            $( #[pyo3(name = $pyname)] $var, )*
        }

        impl From<junqi::$core> for $py {
            fn from(c: junqi::$core) -> Self {
                match c { $( junqi::$core::$var => $py::$var, )* }
            }
        }

        impl From<$py> for junqi::$core {
            fn from(c: $py) -> Self {
                match c { $( $py::$var => junqi::$core::$var, )* }
            }
        }

        impl $py {
            /// Every member, in value order.
            pub const ALL: &'static [$py] = &[$($py::$var),*];

            /// The snake_case id used in JSON.
            pub const fn id_str(self) -> &'static str {
                match self { $( $py::$var => $id, )* }
            }

            /// The upper-case member name.
            pub const fn name_str(self) -> &'static str {
                match self { $( $py::$var => $pyname, )* }
            }

            /// Parses an id or a member name (case-insensitive).
            pub fn parse_plain(text: &str) -> Option<$py> {
                let t = text.trim();
                $py::ALL.iter().copied().find(|m| {
                    m.id_str().eq_ignore_ascii_case(t) || m.name_str().eq_ignore_ascii_case(t)
                })
            }

            /// Extracts a member from a member, a string, or an int value.
            pub fn extract_arg(obj: &Bound<'_, PyAny>) -> PyResult<$py> {
                if let Ok(m) = obj.cast::<$py>() {
                    return Ok(*m.get());
                }
                if let Ok(s) = obj.cast::<PyString>() {
                    let text = s.to_cow()?;
                    return $py::parse_text(&text).ok_or_else(|| {
                        exception(junqi::ErrorKind::UnknownName, format!(
                            "unknown {} {:?} (expected one of: {})",
                            $label,
                            &*text,
                            $py::ALL.iter().map(|m| m.id_str()).collect::<Vec<_>>().join(", ")
                        ))
                    });
                }
                if let Ok(i) = obj.extract::<i64>() {
                    if !obj.is_instance_of::<pyo3::types::PyBool>() {
                        return usize::try_from(i)
                            .ok()
                            .and_then(|i| $py::ALL.get(i).copied())
                            .ok_or_else(|| {
                                exception(junqi::ErrorKind::OutOfRange, format!(
                                    "{} value {} is out of range (0..{})",
                                    $label,
                                    i,
                                    $py::ALL.len()
                                ))
                            });
                    }
                }
                Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "expected a {} (a {} member or a string), got {}",
                    $label,
                    stringify!($py),
                    obj.get_type().name()?
                )))
            }
        }

        #[pymethods]
        impl $py {
            #[new]
            fn py_new(value: &Bound<'_, PyAny>) -> PyResult<$py> {
                $py::extract_arg(value)
            }

            /// Hashes as its value, since members compare equal to their value
            /// (``hash(Side.SOUTH) == hash(0)``), so they and ints mix in dicts and sets.
            fn __hash__(&self) -> isize {
                *self as isize
            }

            /// The snake_case id used in JSON, e.g. ``"south"``.
            #[getter]
            fn id(&self) -> &'static str {
                self.id_str()
            }

            /// The member name, e.g. ``"SOUTH"``.
            #[getter]
            fn name(&self) -> &'static str {
                self.name_str()
            }

            /// The member's integer value (the core's dense index).
            #[getter]
            fn value(&self) -> usize {
                *self as usize
            }

            /// Every member, in value order.
            #[classmethod]
            fn members(_cls: &Bound<'_, PyType>) -> Vec<$py> {
                $py::ALL.to_vec()
            }

            fn __str__(&self) -> &'static str {
                self.id_str()
            }

            fn __repr__(&self) -> String {
                format!("{}.{}", stringify!($py), self.name_str())
            }

            fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyType>, (usize,))> {
                Ok((py.get_type::<$py>().unbind(), (*self as usize,)))
            }

            $($($extra)*)?
        }
    };
}

py_enum! {
    /// A side: an army, and the player who commands it.
    Side => Side, "side" {
        South = "SOUTH", "south";
        East = "EAST", "east";
        North = "NORTH", "north";
        West = "WEST", "west";
    }
}

py_enum! {
    /// The outcome of an attack, from the attacker's point of view.
    CombatOutcome => CombatOutcome, "outcome" {
        Win = "WIN", "win";
        Lose = "LOSE", "lose";
        Both = "BOTH", "both";
        Repel = "REPEL", "repel";
        Evade = "EVADE", "evade";
        Illegal = "ILLEGAL", "illegal";
    }
    methods {
    /// Whether the attacker leaves the board.
    #[getter]
    fn attacker_leaves(&self) -> bool {
        junqi::CombatOutcome::from(*self).attacker_leaves()
    }

    /// Whether the defender leaves the board.
    #[getter]
    fn defender_leaves(&self) -> bool {
        junqi::CombatOutcome::from(*self).defender_leaves()
    }
    }
}

py_enum! {
    /// How an attack is made (海陆空三军棋), for ``resolve_attack``: the outcome is always
    /// the combat table's; who leaves the board and who moves depend on the manner too.
    Attack => Attack, "attack" {
        Move = "MOVE", "move";
        Flight = "FLIGHT", "flight";
        Strike = "STRIKE", "strike";
        Bombardment = "BOMBARDMENT", "bombardment";
    }
}

py_enum! {
    /// What kind of action the game waits for.
    Phase => Phase, "phase" {
        Deploy = "DEPLOY", "deploy";
        Move = "MOVE", "move";
        Reaction = "REACTION", "reaction";
        Over = "OVER", "over";
    }
}

py_enum! {
    /// Why a game ended.
    EndReason => EndReason, "end reason" {
        FlagCaptured = "FLAG_CAPTURED", "flag_captured";
        NoLegalMove = "NO_LEGAL_MOVE", "no_legal_move";
        NoCaptureLimit = "NO_CAPTURE_LIMIT", "no_capture_limit";
        Resignation = "RESIGNATION", "resignation";
        Agreement = "AGREEMENT", "agreement";
        Timeouts = "TIMEOUTS", "timeouts";
        NoMovablePieces = "NO_MOVABLE_PIECES", "no_movable_pieces";
        CommanderCaptured = "COMMANDER_CAPTURED", "commander_captured";
        MutualElimination = "MUTUAL_ELIMINATION", "mutual_elimination";
        Escape = "ESCAPE", "escape";
    }
}

py_enum! {
    /// Why a piece was revealed (``Event.cause`` of a ``revealed`` event).
    RevealCause => RevealCause, "reveal cause" {
        CommanderLost = "COMMANDER_LOST", "commander_lost";
        EngineerScout = "ENGINEER_SCOUT", "engineer_scout";
        Scouted = "SCOUTED", "scouted";
        AntiAir = "ANTI_AIR", "anti_air";
        OpenPlay = "OPEN_PLAY", "open_play";
    }
}

py_enum! {
    /// The arm a piece belongs to (public knowledge): army, navy or air force.
    Arm => Arm, "arm" {
        Army = "ARMY", "army";
        Navy = "NAVY", "navy";
        Air = "AIR", "air";
    }
}

py_enum! {
    /// A power a kind has besides moving (海陆空三军棋); a strike is an attack in which
    /// the striker does not move.
    Ability => Ability, "ability" {
        Strike = "STRIKE", "strike";
        Bombard = "BOMBARD", "bombard";
        AntiAir = "ANTI_AIR", "anti_air";
        Flight = "FLIGHT", "flight";
        Scout = "SCOUT", "scout";
    }
}

py_enum! {
    /// What a point of the board is.
    Role => Role, "role" {
        Post = "POST", "post";
        Camp = "CAMP", "camp";
        Hq = "HQ", "hq";
        Stronghold = "STRONGHOLD", "stronghold";
        HarbourMouth = "HARBOUR_MOUTH", "harbour_mouth";
        Pier = "PIER", "pier";
        Anchorage = "ANCHORAGE", "anchorage";
        Sea = "SEA", "sea";
        Airport = "AIRPORT", "airport";
        Air = "AIR", "air";
    }
}

py_enum! {
    /// The kind of an edge between two points.
    EdgeKind => EdgeKind, "edge kind" {
        Road = "ROAD", "road";
        Railway = "RAILWAY", "railway";
        Sea = "SEA", "sea";
        Coast = "COAST", "coast";
        Air = "AIR", "air";
    }
}

py_enum! {
    /// A kind of piece: the full catalogue of the family (a rule set uses a subset).
    /// Accepts Chinese names: ``PieceKind("工兵") == PieceKind.ENGINEER``.
    PieceKind => PieceKind, "piece kind" {
        Flag = "FLAG", "flag";
        Commander = "COMMANDER", "commander";
        CorpsCommander = "CORPS_COMMANDER", "corps_commander";
        ArmyCommander = "ARMY_COMMANDER", "army_commander";
        DivisionCommander = "DIVISION_COMMANDER", "division_commander";
        BrigadeCommander = "BRIGADE_COMMANDER", "brigade_commander";
        RegimentCommander = "REGIMENT_COMMANDER", "regiment_commander";
        BattalionCommander = "BATTALION_COMMANDER", "battalion_commander";
        CompanyCommander = "COMPANY_COMMANDER", "company_commander";
        PlatoonLeader = "PLATOON_LEADER", "platoon_leader";
        Cavalry = "CAVALRY", "cavalry";
        Infantry = "INFANTRY", "infantry";
        Engineer = "ENGINEER", "engineer";
        Mine = "MINE", "mine";
        Bomb = "BOMB", "bomb";
        Trap = "TRAP", "trap";
        Missile = "MISSILE", "missile";
        AtomicCannon = "ATOMIC_CANNON", "atomic_cannon";
        Nuke = "NUKE", "nuke";
        Tank = "TANK", "tank";
        Artillery = "ARTILLERY", "artillery";
        AaGun = "AA_GUN", "aa_gun";
        Fort = "FORT", "fort";
        MachineGun = "MACHINE_GUN", "machine_gun";
        PoisonGas = "POISON_GAS", "poison_gas";
        Battleship = "BATTLESHIP", "battleship";
        Cruiser = "CRUISER", "cruiser";
        Gunboat = "GUNBOAT", "gunboat";
        Destroyer = "DESTROYER", "destroyer";
        Submarine = "SUBMARINE", "submarine";
        Fighter = "FIGHTER", "fighter";
        Recon = "RECON", "recon";
    }
    methods {
    /// The Chinese names (the first is the usual one).
    #[getter]
    fn chinese_names(&self) -> Vec<&'static str> {
        junqi::PieceKind::from(*self).chinese_names().to_vec()
    }

    /// The two-letter code used by text renderings of the board.
    #[getter]
    fn short(&self) -> &'static str {
        junqi::PieceKind::from(*self).short()
    }

    /// The broad class: ``"flag"``, ``"officer"``, ``"weapon"``, ``"ship"`` or ``"plane"``.
    #[getter]
    fn piece_class(&self) -> &'static str {
        match junqi::PieceKind::from(*self).class() {
            junqi::PieceClass::Flag => "flag",
            junqi::PieceClass::Officer => "officer",
            junqi::PieceClass::Weapon => "weapon",
            junqi::PieceClass::Ship => "ship",
            junqi::PieceClass::Plane => "plane",
        }
    }

    /// The arm: ``Arm.ARMY``, ``Arm.NAVY`` (ships) or ``Arm.AIR`` (planes).
    #[getter]
    fn arm(&self) -> Arm {
        junqi::PieceKind::from(*self).arm().into()
    }
    }
}

// Names beyond the plain ids: the core's own parsers (Chinese names, one-letter sides).
impl Side {
    fn parse_text(t: &str) -> Option<Side> {
        Side::parse_plain(t).or_else(|| junqi::Side::from_name(t).map(Side::from))
    }
}
impl PieceKind {
    fn parse_text(t: &str) -> Option<PieceKind> {
        PieceKind::parse_plain(t).or_else(|| junqi::PieceKind::from_name(t).map(PieceKind::from))
    }
}



macro_rules! plain_parse {
    ($($t:ident),*) => {$(
        impl $t {
            fn parse_text(t: &str) -> Option<$t> {
                $t::parse_plain(t)
            }
        }
    )*};
}
plain_parse!(CombatOutcome, Attack, Phase, EndReason, RevealCause, Arm, Ability, Role, EdgeKind);

pub fn side_arg(obj: &Bound<'_, PyAny>) -> PyResult<junqi::Side> {
    Side::extract_arg(obj).map(Into::into)
}

pub fn kind_arg(obj: &Bound<'_, PyAny>) -> PyResult<junqi::PieceKind> {
    PieceKind::extract_arg(obj).map(Into::into)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Side>()?;
    m.add_class::<PieceKind>()?;
    m.add_class::<CombatOutcome>()?;
    m.add_class::<Attack>()?;
    m.add_class::<Phase>()?;
    m.add_class::<EndReason>()?;
    m.add_class::<RevealCause>()?;
    m.add_class::<Arm>()?;
    m.add_class::<Ability>()?;
    m.add_class::<Role>()?;
    m.add_class::<EdgeKind>()?;
    Ok(())
}
