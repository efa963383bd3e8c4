//! 海陆空三军棋 combat tables: every attacker/defender pair of every preset, checked
//! against a second, independent transcription of docs/sanjun.md §5 written here as
//! code. The presets' JSON tables and these functions must agree on all 30 × 30 pairs.
use junqi::{resolve, CombatOutcome, CombatOutcome::*, PieceKind, PieceKind::*, RuleSet};

fn officer_rank(k: PieceKind) -> Option<u8> {
    Some(match k {
        Commander => 11,
        CorpsCommander => 10,
        ArmyCommander => 9,
        DivisionCommander => 8,
        RegimentCommander => 7,
        BattalionCommander => 6,
        CompanyCommander => 5,
        PlatoonLeader => 4,
        Cavalry => 3,
        Infantry => 2,
        Engineer => 1,
        _ => return None,
    })
}

fn grade(k: PieceKind) -> Option<u8> {
    Some(match k {
        AtomicCannon => 7,
        Tank => 6,
        Artillery => 5,
        AaGun => 4,
        Fort => 3,
        MachineGun => 2,
        PoisonGas => 1,
        _ => return None,
    })
}

fn ship_grade(k: PieceKind) -> Option<u8> {
    Some(match k {
        Battleship => 4,
        Cruiser => 3,
        Gunboat => 2,
        Destroyer => 1,
        _ => return None,
    })
}

fn cmp(a: u8, b: u8) -> CombatOutcome {
    match a.cmp(&b) {
        std::cmp::Ordering::Greater => Win,
        std::cmp::Ordering::Equal => Both,
        std::cmp::Ordering::Less => Lose,
    }
}

fn is_ship(k: PieceKind) -> bool {
    matches!(k, Battleship | Cruiser | Gunboat | Destroyer | Submarine)
}
fn is_plane(k: PieceKind) -> bool {
    matches!(k, Fighter | Recon)
}
fn immobile(k: PieceKind) -> bool {
    matches!(k, Flag | Mine | Trap)
}

/// Stand-ins of the big ships: (as an officer, as a weapon).
fn stand_in(ship: PieceKind) -> Option<(PieceKind, PieceKind)> {
    match ship {
        Battleship => Some((DivisionCommander, Tank)),
        Cruiser => Some((RegimentCommander, Artillery)),
        Gunboat => Some((BattalionCommander, Fort)),
        _ => None,
    }
}

/// An army piece (officer, engineer or graded weapon) attacking an army piece, modern.
fn army_row(a: PieceKind, d: PieceKind) -> CombatOutcome {
    if a == Engineer {
        return match d {
            Engineer => Both,
            _ if officer_rank(d).is_some() => Lose,
            Flag | Mine | Trap | PoisonGas | Bomb | Fort => Win,
            Missile => Both,
            _ => Lose,
        };
    }
    if let Some(ra) = officer_rank(a) {
        return match d {
            _ if officer_rank(d).is_some() => cmp(ra, officer_rank(d).unwrap()),
            Flag => Win,
            Bomb | Missile => Both,
            _ => Lose,
        };
    }
    let ga = grade(a).expect("a graded weapon");
    match d {
        Engineer if a == PoisonGas => Lose,
        Flag => Win,
        _ if officer_rank(d).is_some() => Win,
        Mine | Missile | Bomb => Both,
        Trap => Lose,
        _ => cmp(ga, grade(d).expect("a graded weapon")),
    }
}

/// docs/sanjun.md §5, the `sanjun-modern` table.
fn modern(a: PieceKind, d: PieceKind) -> CombatOutcome {
    if immobile(a) {
        return Illegal;
    }
    if is_plane(d) {
        return match a {
            Missile => Both,
            AaGun | Gunboat | Fighter => Win,
            Recon if d == Fighter => Lose,
            Recon => Repel,
            _ => Illegal,
        };
    }
    match a {
        Fighter => match d {
            AaGun | Gunboat => Lose,
            Trap | Submarine => Repel,
            _ => Win,
        },
        Recon => match d {
            AaGun | Gunboat => Lose,
            Missile => Both,
            _ => Repel,
        },
        Missile => match d {
            Trap => Repel,
            Submarine => Lose,
            _ => Both,
        },
        Bomb => match d {
            Trap => Repel,
            Flag => Win,
            Destroyer | Submarine => Illegal,
            _ => Both,
        },
        Fort if is_ship(d) => {
            if d == Submarine {
                Repel
            } else {
                Win
            }
        }
        _ if is_ship(a) && is_ship(d) => match (a, d) {
            (Destroyer, Submarine) => Win,
            (Submarine, Destroyer) => Lose,
            (Submarine, Submarine) => Both,
            (Submarine, _) => Win,
            (_, Submarine) => Lose,
            _ => cmp(ship_grade(a).unwrap(), ship_grade(d).unwrap()),
        },
        _ if is_ship(a) => match stand_in(a) {
            None => Illegal,
            Some((as_officer, as_weapon)) => {
                let weapon_defender = officer_rank(d).is_none() && d != Flag;
                army_row(if weapon_defender { as_weapon } else { as_officer }, d)
            }
        },
        _ if is_ship(d) => match stand_in(d) {
            None => Illegal,
            Some((as_officer, as_weapon)) => {
                army_row(a, if officer_rank(a).is_some() { as_officer } else { as_weapon })
            }
        },
        _ => army_row(a, d),
    }
}

/// Whether `a` can attack army pieces at all (mobile, and not a destroyer/submarine).
fn hits_army(a: PieceKind) -> bool {
    !immobile(a) && !matches!(a, Destroyer | Submarine)
}

fn hk(a: PieceKind, d: PieceKind) -> CombatOutcome {
    if officer_rank(a).is_some() && matches!(d, Bomb | Fort) {
        return Win;
    }
    // docs/sources.md#hk-officers: 官兵遇武器即敗 — the missile is a weapon like the others.
    if officer_rank(a).is_some() && d == Missile {
        return Lose;
    }
    if d == Mine && hits_army(a) {
        return match a {
            Engineer | Fighter => Win,
            Recon => Repel,
            _ => Both,
        };
    }
    if matches!(a, Missile | Bomb) && d == Trap {
        return Lose;
    }
    // docs/sources.md#hk-fighter: the fighter beats everything but aa guns and gunboats;
    // the trap beats only officers and weapons (docs/sources.md#hk-mines-traps).
    if a == Fighter && d == Trap {
        return Win;
    }
    if matches!(a, Missile | Fighter | Fort) && d == Submarine {
        return Evade;
    }
    if is_ship(a) && d == Submarine {
        return Win;
    }
    modern(a, d)
}

fn book(a: PieceKind, d: PieceKind) -> CombatOutcome {
    if d == Mine && hits_army(a) {
        return match a {
            Engineer | Fighter => Win,
            Recon => Repel,
            _ => Both,
        };
    }
    if d == Trap && hits_army(a) {
        return match a {
            Engineer => Win,
            Fighter => Repel,
            _ => Lose,
        };
    }
    if matches!(a, Missile | Fighter | Fort) && d == Submarine {
        return Evade;
    }
    modern(a, d)
}

fn forum(a: PieceKind, d: PieceKind) -> CombatOutcome {
    if hits_army(a) {
        match d {
            Flag => return if matches!(a, Engineer | AaGun) { Win } else { Illegal },
            Mine => return if matches!(a, Engineer | Fighter) { Win } else { Both },
            Trap => {
                return match a {
                    Engineer => Win,
                    Fighter => Repel,
                    _ => Lose,
                }
            }
            _ => {}
        }
    }
    if matches!(a, Missile | Fort) && d == Submarine {
        return Evade;
    }
    if a == Fighter && d == Submarine {
        return Win;
    }
    if a == d && (grade(a).is_some() || matches!(a, Bomb | Nuke | Missile)) {
        return Win;
    }
    // The nuke behaves like a bomb, except that an engineer attacking it gives both.
    if a == Nuke {
        return if is_plane(d) { Illegal } else { modern(Bomb, d) };
    }
    if d == Nuke {
        return if a == Engineer { Both } else { modern(a, Bomb) };
    }
    modern(a, d)
}

fn check(preset: &str, expected: fn(PieceKind, PieceKind) -> CombatOutcome) {
    let rules = RuleSet::preset(preset).unwrap();
    let army: Vec<PieceKind> = rules.army().map(|(k, _)| k).collect();
    assert_eq!(army.len(), 30, "{preset}: 30 kinds, one of each");
    let mut wrong = Vec::new();
    for &a in &army {
        for &d in &army {
            let (got, want) = (resolve(&rules, a, d), expected(a, d));
            if got != want {
                wrong.push(format!("{a} vs {d}: table {got}, rules {want}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{preset}: {} pairs differ:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn modern_table_matches_the_rules() {
    check("sanjun-modern", modern);
}

#[test]
fn hk_table_matches_the_rules() {
    check("sanjun-hk", hk);
}

#[test]
fn book_table_matches_the_rules() {
    check("sanjun-book", book);
}

#[test]
fn forum_table_matches_the_rules() {
    check("sanjun-forum", forum);
}

#[test]
fn the_forum_army_has_the_nuke_instead_of_the_atomic_cannon() {
    let forum = RuleSet::preset("sanjun-forum").unwrap();
    assert!(forum.has_kind(Nuke) && !forum.has_kind(AtomicCannon));
    let modern = RuleSet::preset("sanjun-modern").unwrap();
    assert!(modern.has_kind(AtomicCannon) && !modern.has_kind(Nuke));
    // Spot checks of the rows that differ most, in words.
    assert_eq!(resolve(&forum, Engineer, Nuke), Both, "a nuke cannot be defused");
    assert_eq!(resolve(&forum, Fighter, Nuke), Win);
    assert_eq!(resolve(&forum, Tank, Tank), Win, "same-kind weapons: the attacker wins");
    assert_eq!(resolve(&forum, AaGun, Flag), Win, "an aa gun destroys the flag");
    assert_eq!(resolve(&forum, Commander, Flag), Illegal);
    assert_eq!(resolve(&modern, Commander, Flag), Win);
    assert_eq!(resolve(&modern, Battleship, Commander), Lose, "a battleship is a division commander ashore");
    assert_eq!(resolve(&modern, Battleship, Artillery), Win, "… and a tank against weapons");
    assert_eq!(resolve(&modern, Destroyer, Infantry), Illegal);
    assert_eq!(resolve(&modern, Infantry, Submarine), Illegal);
}

#[test]
fn bad_equivalents_and_camp_exemptions_are_refused_with_their_reason() {
    let with = |extra: &str| RuleSet::from_json(&format!(r#"{{"extends": "sanjun-modern", "name": "t", {extra}}}"#));
    let err = with(r#""options": {"camp_exempt": ["@boats"]}"#).unwrap_err();
    assert!(matches!(err, junqi::RulesError::BadCampExempt(ref p) if p == "@boats"), "{err}");
    let err = with(r#""equivalents": {"cruiser": {"@weapon": "battleship"}, "battleship": {"*": "tank"}}"#).unwrap_err();
    assert!(matches!(err, junqi::RulesError::BadEquivalent(_)), "{err}");
    let err = with(r#""combat_first": {"attacker": "*"}"#).unwrap_err();
    assert!(err.to_string().contains("combat_first"), "{err}");
    // Without equivalents a battleship ashore fights no officer at all.
    let plain = with(r#""equivalents": {}"#).unwrap();
    assert_eq!(resolve(&plain, Battleship, Commander), Illegal);
}
