//! Piece kinds, piece classes and sides.
//!
//! Every API names a piece kind by its canonical id (`"engineer"`, `"flag"`, …, see
//! `docs/pieces.md`); [`PieceKind::from_name`] also accepts the Chinese names,
//! traditional or simplified.

use crate::names::named_enum;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! piece_kinds {
    ($( $variant:ident = $id:literal, $class:ident, [$($zh:literal),*]; )*) => {
        /// A kind of piece. The full catalogue of the family; a rule set uses a subset.
        ///
        /// Kinds convert to and from a dense index (`kind as usize`,
        /// [`PieceKind::from_index`]) and to and from their canonical id.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum PieceKind {
            $(
                #[doc = concat!("`", $id, "` (", $($zh, " ",)* ")")]
                $variant,
            )*
        }

        impl PieceKind {
            /// Every kind, in index order.
            pub const ALL: [PieceKind; PieceKind::COUNT] = [$(PieceKind::$variant),*];
            /// Number of kinds in the catalogue.
            pub const COUNT: usize = [$($id),*].len();

            /// The canonical id, e.g. `"division_commander"`.
            pub const fn id(self) -> &'static str {
                match self { $(PieceKind::$variant => $id,)* }
            }

            /// The Chinese names (the first is the usual one).
            pub const fn chinese_names(self) -> &'static [&'static str] {
                match self { $(PieceKind::$variant => &[$($zh),*],)* }
            }

            /// The broad class of the kind.
            pub const fn class(self) -> PieceClass {
                match self { $(PieceKind::$variant => PieceClass::$class,)* }
            }
        }
    };
}

piece_kinds! {
    Flag = "flag", Flag, ["军旗", "軍旗"];
    Commander = "commander", Officer, ["司令", "总司令", "總司令"];
    CorpsCommander = "corps_commander", Officer, ["兵团司令", "兵團司令"];
    ArmyCommander = "army_commander", Officer, ["军长", "軍長"];
    DivisionCommander = "division_commander", Officer, ["师长", "師長"];
    BrigadeCommander = "brigade_commander", Officer, ["旅长", "旅長"];
    RegimentCommander = "regiment_commander", Officer, ["团长", "團長"];
    BattalionCommander = "battalion_commander", Officer, ["营长", "營長"];
    CompanyCommander = "company_commander", Officer, ["连长", "連長"];
    PlatoonLeader = "platoon_leader", Officer, ["排长", "排長"];
    Cavalry = "cavalry", Officer, ["骑兵", "騎兵"];
    Infantry = "infantry", Officer, ["步兵"];
    Engineer = "engineer", Officer, ["工兵"];
    Mine = "mine", Weapon, ["地雷"];
    Bomb = "bomb", Weapon, ["炸弹", "炸彈"];
    Trap = "trap", Weapon, ["陷阱"];
    Missile = "missile", Weapon, ["飞弹", "飛彈"];
    AtomicCannon = "atomic_cannon", Weapon, ["原子炮"];
    Nuke = "nuke", Weapon, ["核弹", "原子弹", "核彈", "原子彈"];
    Tank = "tank", Weapon, ["坦克", "坦克车", "坦克車"];
    Artillery = "artillery", Weapon, ["大炮", "火炮"];
    AaGun = "aa_gun", Weapon, ["高射炮"];
    Fort = "fort", Weapon, ["炮垒", "炮壘"];
    MachineGun = "machine_gun", Weapon, ["机关枪", "机枪", "機關槍", "機槍"];
    PoisonGas = "poison_gas", Weapon, ["毒气", "毒氣"];
    Battleship = "battleship", Ship, ["主力舰", "主力艦"];
    Cruiser = "cruiser", Ship, ["巡洋舰", "巡洋艦"];
    Gunboat = "gunboat", Ship, ["炮舰", "炮艦"];
    Destroyer = "destroyer", Ship, ["驱逐舰", "驅逐艦"];
    Submarine = "submarine", Ship, ["潜水艇", "潜艇", "潛水艇", "潛艇"];
    Fighter = "fighter", Plane, ["战斗机", "戰鬥機"];
    Recon = "recon", Plane, ["侦察机", "偵察機"];
}

named_enum! {
    /// The broad class of a piece kind (`docs/pieces.md`).
    pub enum PieceClass {
        /// The flag (军旗).
        Flag = "flag",
        /// Officers, including the engineer.
        Officer = "officer",
        /// Weapons: mines, bombs, guns…
        Weapon = "weapon",
        /// Ships (海军).
        Ship = "ship",
        /// Planes (空军).
        Plane = "plane",
    }
}

named_enum! {
    /// The arm a piece belongs to. Arms are public (`docs/referee.md`): what started on an
    /// anchorage is a ship, on an airport a plane, anywhere else an army piece.
    #[derive(PartialOrd, Ord)]
    #[repr(u8)]
    pub enum Arm {
        /// The army: flag, officers, weapons (陆军).
        Army = "army",
        /// The navy: ships (海军).
        Navy = "navy",
        /// The air force: planes (空军).
        Air = "air",
    }
}

impl PieceKind {
    /// The kind's arm (public knowledge).
    pub const fn arm(self) -> Arm {
        match self.class() {
            PieceClass::Ship => Arm::Navy,
            PieceClass::Plane => Arm::Air,
            _ => Arm::Army,
        }
    }

    /// The kind at a dense index, the inverse of `kind as usize`.
    pub fn from_index(index: usize) -> Option<PieceKind> {
        PieceKind::ALL.get(index).copied()
    }

    /// Parses a canonical id or a Chinese name (traditional or simplified).
    pub fn from_name(name: &str) -> Option<PieceKind> {
        let name = name.trim();
        PieceKind::ALL
            .into_iter()
            .find(|k| k.id() == name || k.chinese_names().contains(&name))
    }

    /// Two-letter code used by the text renderings of boards: upper case, distinct for
    /// every kind even ignoring case, and mostly the English abbreviation (`GN` the
    /// commander, a general; `HO` the cavalry, horse).
    ///
    /// ```
    /// use junqi::PieceKind;
    /// let codes: std::collections::HashSet<String> =
    ///     PieceKind::ALL.iter().map(|k| k.short().to_ascii_lowercase()).collect();
    /// assert_eq!(codes.len(), PieceKind::COUNT);
    /// assert!(PieceKind::ALL.iter().all(|k| k.short().len() == 2 && k.short() == k.short().to_ascii_uppercase()));
    /// ```
    pub const fn short(self) -> &'static str {
        use PieceKind::*;
        match self {
            Flag => "FL",
            Commander => "GN",
            CorpsCommander => "CP",
            ArmyCommander => "AM",
            DivisionCommander => "DV",
            BrigadeCommander => "BG",
            RegimentCommander => "RG",
            BattalionCommander => "BN",
            CompanyCommander => "CO",
            PlatoonLeader => "PL",
            Cavalry => "HO",
            Infantry => "IN",
            Engineer => "EN",
            Mine => "MI",
            Bomb => "BO",
            Trap => "TR",
            Missile => "MS",
            AtomicCannon => "AC",
            Nuke => "NU",
            Tank => "TK",
            Artillery => "AR",
            AaGun => "AA",
            Fort => "FO",
            MachineGun => "MG",
            PoisonGas => "PG",
            Battleship => "BS",
            Cruiser => "CR",
            Gunboat => "GB",
            Destroyer => "DE",
            Submarine => "SU",
            Fighter => "FI",
            Recon => "RE",
        }
    }
}

impl fmt::Display for PieceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The name given was not a piece kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown piece kind {0:?} (expected an id such as \"engineer\" or a Chinese name such as \"工兵\")")]
pub struct UnknownKind(pub String);

impl FromStr for PieceKind {
    type Err = UnknownKind;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PieceKind::from_name(s).ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

impl Serialize for PieceKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for PieceKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

named_enum! {
    /// A side (an army, and in two- and four-player games the player who commands it).
    ///
    /// Turn order is a property of the rule set; the board says which points belong to
    /// which side.
    #[derive(PartialOrd, Ord)]
    #[repr(u8)]
    pub enum Side {
        /// The side at the bottom of the board (moves first in `classic`).
        South = "south",
        /// The side on the right in four-player games.
        East = "east",
        /// The side at the top of the board.
        North = "north",
        /// The side on the left in four-player games.
        West = "west",
    }
}

impl Side {

    /// Parses `"south"`, `"north"`, … (case-insensitive) or the Chinese 南/北/东/西.
    pub fn from_name(name: &str) -> Option<Side> {
        match name.trim().to_ascii_lowercase().as_str() {
            "south" | "s" | "南" => Some(Side::South),
            "east" | "e" | "东" | "東" => Some(Side::East),
            "north" | "n" | "北" => Some(Side::North),
            "west" | "w" | "西" => Some(Side::West),
            _ => None,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name given was not a side.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown side {0:?} (expected \"south\", \"east\", \"north\" or \"west\")")]
pub struct UnknownSide(pub String);

impl FromStr for Side {
    type Err = UnknownSide;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Side::from_name(s).ok_or_else(|| UnknownSide(s.to_owned()))
    }
}

/// A set of sides (e.g. the winners of a game: one side, a team, or nobody for a draw).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SideSet(u8);

impl SideSet {
    /// The empty set.
    pub const EMPTY: SideSet = SideSet(0);

    /// The set holding only `side`.
    pub const fn single(side: Side) -> SideSet {
        SideSet(1 << side as u8)
    }

    /// Whether `side` is in the set.
    pub const fn contains(self, side: Side) -> bool {
        self.0 & (1 << side as u8) != 0
    }

    /// The set with `side` added.
    #[must_use]
    pub const fn with(self, side: Side) -> SideSet {
        SideSet(self.0 | (1 << side as u8))
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of sides in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The sides in index order.
    pub fn iter(self) -> impl Iterator<Item = Side> {
        Side::ALL.into_iter().filter(move |s| self.contains(*s))
    }
}

impl FromIterator<Side> for SideSet {
    fn from_iter<I: IntoIterator<Item = Side>>(iter: I) -> Self {
        iter.into_iter().fold(SideSet::EMPTY, SideSet::with)
    }
}

impl Serialize for SideSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for SideSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<Side>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_roundtrip() {
        for (i, k) in PieceKind::ALL.into_iter().enumerate() {
            assert_eq!(k as usize, i);
            assert_eq!(PieceKind::from_index(i), Some(k));
            assert_eq!(PieceKind::from_name(k.id()), Some(k));
            for zh in k.chinese_names() {
                assert_eq!(PieceKind::from_name(zh), Some(k), "{zh}");
            }
        }
        assert_eq!(PieceKind::from_index(PieceKind::COUNT), None);
        assert_eq!(PieceKind::COUNT, 32);
    }

    #[test]
    fn chinese_names_parse() {
        assert_eq!("工兵".parse::<PieceKind>().unwrap(), PieceKind::Engineer);
        assert_eq!("師長".parse::<PieceKind>().unwrap(), PieceKind::DivisionCommander);
        assert_eq!("总司令".parse::<PieceKind>().unwrap(), PieceKind::Commander);
        let err = "general".parse::<PieceKind>().unwrap_err();
        assert!(err.to_string().contains("\"general\""));
    }

    #[test]
    fn side_sets() {
        let s: SideSet = [Side::South, Side::North].into_iter().collect();
        assert!(s.contains(Side::North) && !s.contains(Side::East));
        assert_eq!(s.len(), 2);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![Side::South, Side::North]);
    }
}
