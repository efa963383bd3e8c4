//! Position strings (docs/position-strings.md): round trips over random positions of
//! every preset, view strings that do not depend on what the viewer has not seen, games
//! started from a string, and clear refusals.

use junqi::{Action, Game, Phase, Position, PositionStringError as E, Rng, RuleSet, Side};

/// Positions of a few random games of `preset`, every 10 plies (and the deployment
/// phase, and the end).
fn positions(preset: &str) -> Vec<Game> {
    let mut out = Vec::new();
    for seed in 0..3u64 {
        let rules = RuleSet::preset(preset).unwrap();
        let mut game = Game::with_rules(rules.clone(), seed);
        let mut rng = Rng::new(seed ^ 0x5EED);
        if !rules.deals() {
            for (i, &side) in rules.sides().iter().enumerate() {
                game.deploy_random(side, rng.next_u64()).unwrap();
                if i == 0 {
                    out.push(game.clone());
                }
            }
        }
        for ply in 0..400 {
            if game.phase() == Phase::Over {
                break;
            }
            if ply % 10 == 0 {
                out.push(game.clone());
            }
            let legal = game.legal_actions();
            if legal.is_empty() || rng.below(50) == 0 {
                game.time_out().unwrap();
            } else {
                game.play(legal[rng.below(legal.len())]).unwrap();
            }
        }
        out.push(game);
    }
    out
}

fn notation(pos: &Position, legal: Vec<Action>) -> Vec<String> {
    let mut v: Vec<String> = legal.iter().map(|a| a.to_notation(pos.rules().board())).collect();
    v.sort();
    v
}

#[test]
fn round_trips_over_random_positions_of_every_preset() {
    for preset in RuleSet::preset_names() {
        for game in positions(preset) {
            let pos = game.position();
            let text = pos.position_string();
            assert!(!text.contains('\n'), "{text}");
            let back = Position::from_position_string(&text).unwrap_or_else(|e| panic!("{preset}: {e}\n{text}"));
            assert_eq!(back.position_string(), text, "{preset}");
            assert_eq!(back.phase(), pos.phase());
            assert_eq!(back.to_act(), pos.to_act());
            assert_eq!(notation(&back, back.legal_actions()), notation(pos, pos.legal_actions()), "{text}");
            for &player in pos.rules().sides() {
                let view = pos.view_string(player);
                let (seen, whose) = Position::from_view_string_with(pos.rules().clone(), &view).unwrap();
                assert_eq!(whose, Some(player));
                assert_eq!(seen.view_string(player), view, "{preset}");
                if pos.to_act() == Some(player) && pos.phase() != Phase::Over {
                    // The viewer's legal actions are those of the true position.
                    assert_eq!(notation(&seen, seen.legal_actions()), notation(pos, pos.legal_actions()), "{view}");
                }
            }
        }
    }
}

/// Every ply of random 三军 games, where planes are repelled, owe a move away and are
/// shot down while they owe it: the position and every view print and read back. (A
/// plane that left the board while it owed a move once made the string writer index
/// the board with the off-board sentinel.)
#[test]
fn every_ply_of_air_games_prints_and_reads_back() {
    for preset in ["sanjun-modern", "sanjun-hk", "sanjun-book", "sanjun-forum"] {
        for seed in 0..12u64 {
            let rules = RuleSet::preset(preset).unwrap();
            let mut game = Game::random_start(rules.clone(), seed).unwrap();
            let mut rng = Rng::new(seed ^ 0xABCD);
            while game.result().is_none() && game.position().ply() < 300 {
                let text = game.position_string();
                let back = Position::from_position_string(&text).unwrap_or_else(|e| panic!("{preset} {seed}: {e}\n{text}"));
                assert_eq!(back.position_string(), text);
                for &player in rules.sides() {
                    let view = game.view_string(player);
                    assert!(Position::from_view_string_with(rules.clone(), &view).is_ok(), "{view}");
                }
                let legal = game.legal_actions();
                if legal.is_empty() {
                    break;
                }
                game.play(legal[rng.below(legal.len())]).unwrap();
            }
        }
    }
}

/// A full position string with the identities (owner and kind) of the pieces on two
/// points swapped; their marks (face down, moved, knowers) stay on their points.
fn swap_pieces(text: &str, a: &str, b: &str) -> String {
    let mut fields: Vec<String> = text.split(' ').map(str::to_owned).collect();
    let mut pieces: Vec<String> = fields[1].split(',').map(str::to_owned).collect();
    let ia = pieces.iter().position(|p| p.split('=').next() == Some(a)).unwrap();
    let ib = pieces.iter().position(|p| p.split('=').next() == Some(b)).unwrap();
    let (ea, eb) = (pieces[ia][a.len() + 1..].to_owned(), pieces[ib][b.len() + 1..].to_owned());
    pieces[ia] = format!("{a}={}{}", &eb[..3], &ea[3..]);
    pieces[ib] = format!("{b}={}{}", &ea[..3], &eb[3..]);
    fields[1] = pieces.join(",");
    fields.join(" ")
}

#[test]
fn a_view_string_does_not_change_when_unseen_identities_are_swapped() {
    let (mut swaps, mut marked) = (0, 0);
    for preset in RuleSet::preset_names() {
        for game in positions(preset).into_iter().step_by(3) {
            let pos = game.position();
            let board = pos.rules().board();
            let text = pos.position_string();
            for &player in pos.rules().sides() {
                // Two pieces the player does not know, of one arm, with different
                // identities (face down: any army; else one enemy army).
                let unseen: Vec<_> = pos
                    .pieces()
                    .filter(|(p, _, _)| !pos.knows(player, *p))
                    .collect();
                let pair = unseen.iter().enumerate().find_map(|(i, a)| {
                    unseen[i + 1..].iter().find(|b| {
                        a.2.arm() == b.2.arm()
                            && (a.1, a.2) != (b.1, b.2)
                            && (a.1 == b.1 || (pos.is_face_down(a.0) && pos.is_face_down(b.0)))
                            && pos.is_face_down(a.0) == pos.is_face_down(b.0)
                    }).map(|b| (*a, *b))
                });
                let Some((a, b)) = pair else { continue };
                let swapped = swap_pieces(&text, board.name_of(a.0), board.name_of(b.0));
                let Ok(other) = Position::from_position_string(&swapped) else { continue };
                assert_ne!(other.position_string(), text);
                assert_eq!(other.view_string(player), pos.view_string(player), "{preset}: {swapped}");
                swaps += 1;
                // The moved marks are in the view and stay put (one swapped piece that
                // has moved, at least, now and then).
                if pos.has_moved(a.0) || pos.has_moved(b.0) {
                    assert!(pos.view_string(player).contains('*'));
                    marked += 1;
                }
            }
        }
    }
    assert!(swaps > 20, "only {swaps} swaps tried");
    assert!(marked > 5, "only {marked} swaps of a piece that has moved");
}

#[test]
fn a_view_string_shows_only_what_its_player_knows() {
    let rules = RuleSet::preset("classic").unwrap();
    let pos = Position::random_start(rules, 5);
    let view = pos.view_string(Side::South);
    let pieces = view.split(' ').nth(1).unwrap();
    for entry in pieces.split(',') {
        let piece = entry.split('=').nth(1).unwrap();
        match piece.chars().next().unwrap() {
            'S' => assert_ne!(&piece[1..3], "??", "{entry}"),
            'N' => assert_eq!(&piece[1..], "??", "{entry}"),
            c => panic!("unexpected owner {c}"),
        }
    }
    // 翻棋: every piece face down, owner and kind unknown, to every player.
    let fanqi = Position::random_start(RuleSet::preset("fanqi").unwrap(), 5);
    let view = fanqi.view_string(Side::North);
    assert!(view.split(' ').nth(1).unwrap().split(',').all(|e| e.ends_with("=???")), "{view}");
    assert!(fanqi.position_string().contains('!'));
}

#[test]
fn a_game_started_from_a_string_plays_and_replays() {
    for preset in ["classic", "siguo", "fanqi", "sanjun-modern"] {
        let games = positions(preset);
        let game = &games[games.len() / 2];
        let mut started = Game::from_position_string(&game.position_string(), 1).unwrap();
        assert_eq!(started.start_position_string(), Some(game.position_string().as_str()));
        assert!(started.rules().sides().iter().all(|s| started.events(*s).is_empty()));
        let mut agent = junqi::agent::by_name("random", 3).unwrap();
        for step in 0..30 {
            let Some(side) = started.to_act() else { break };
            let info = started.info_state(side);
            assert!(info.beliefs().is_consistent(), "{preset}");
            // Beliefs hold what the string tells the player and nothing more.
            for (p, owner, kind) in started.position().pieces() {
                let c = info.beliefs().candidate_identities(p);
                assert!(c.contains(&(owner, kind)), "{preset}: truth not a candidate");
                // (At the start: later events may tell more, e.g. a rail turn.)
                if step == 0 && !started.position().knows(side, p) {
                    assert!(c.len() > 1 || started.position().occupied_by(owner).len() == 1, "{preset}: {} {c:?} {}", started.board().name_of(p), started.view_string(side));
                }
            }
            junqi::agent::act(&mut started, side, agent.as_mut()).unwrap();
        }
        let replay = started.record().replay().unwrap();
        assert_eq!(replay.position_string(), started.position_string());
        // A game started from a view string plays as its viewer may play.
        let side = game.to_act().unwrap();
        let seen = Game::from_position_string(&game.view_string(side), 1).unwrap();
        assert_eq!(seen.view_string(side), game.view_string(side));
        let info = seen.info_state(side);
        assert_eq!(info.legal_actions(), game.legal_actions(), "{preset}");
    }
}

#[test]
fn bad_strings_are_refused_with_a_reason() {
    let good = Position::random_start(RuleSet::preset("classic").unwrap(), 2).position_string();
    let fields: Vec<&str> = good.split(' ').collect();
    let with = |i: usize, v: &str| {
        let mut f = fields.clone();
        f[i] = v;
        f.join(" ")
    };
    let err = |s: &str| Position::from_position_string(s).unwrap_err();
    assert_eq!(err(""), E::Empty);
    assert!(matches!(err("chess - move S 0 0"), E::Rules(_)));
    assert_eq!(err("classic"), E::Missing("pieces"));
    assert_eq!(err(&fields[..4].join(" ")), E::Missing("ply"));
    assert!(matches!(err(&with(1, "a1=SFL,a1=SGN")), E::PointOrder(_)));
    assert!(matches!(err(&with(1, "z99=SFL")), E::Point(_)));
    assert!(matches!(err(&with(1, "a1=XFL")), E::Side(_)));
    assert!(matches!(err(&with(1, "a1=SZZ")), E::Kind(_)));
    assert!(matches!(err(&with(1, "a1=S??")), E::Piece(_)));
    assert!(matches!(err(&with(1, "a1SFL")), E::Piece(_)));
    assert!(matches!(err(&with(1, "a1=SFL,a2=SFL")), E::TooMany(_)));
    assert!(matches!(err(&with(2, "moving")), E::Phase(_)));
    assert!(matches!(err(&with(3, "E")), E::Side(_)));
    assert!(matches!(err(&with(4, "-1")), E::Number("ply", _)));
    assert!(matches!(err(&format!("{good} colour=red")), E::Key(_)));
    assert!(matches!(err(&format!("{good} react=a1")), E::Inconsistent(_)));
    assert!(matches!(err(&format!("{good} result=S:resignation")), E::Inconsistent(_)));
    assert!(matches!(err(&with(2, "over")), E::Missing("result")));
    assert!(matches!(err(&"x".repeat(20_000)), E::TooLong(_)));
    // A view string does not mark knowledge.
    let view = Position::random_start(RuleSet::preset("classic").unwrap(), 2).view_string(Side::South);
    assert!(matches!(err(&view.replacen("=SFL", "=SFL+N", 1)), E::Piece(_)));
    // Every message is a sentence naming what is wrong, and Debug is the message.
    let e = err(&with(1, "z99=SFL"));
    assert_eq!(format!("{e:?}"), "unknown point \"z99\"");
}

#[test]
fn every_example_of_the_docs_reads_back_and_prints_the_same() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/position-strings.md")).unwrap();
    let mut n = 0;
    for block in doc.split("```text\n").skip(2) {
        for line in block.split("```").next().unwrap().lines() {
            let rules = RuleSet::preset(line.split(' ').next().unwrap()).unwrap();
            let (pos, view) = Position::from_view_string_with(rules, line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let again = match view {
                Some(v) => pos.view_string(v),
                None => pos.position_string(),
            };
            assert_eq!(again, line);
            n += 1;
        }
    }
    assert!(n >= 18, "{n} examples");
}

/// Random edits of real strings (a piece's owner or kind, the phase, the side to act,
/// a dropped piece, an added key): each reads or is refused, never panics, and what
/// reads prints back stably and plays an action.
#[test]
fn edited_strings_read_or_are_refused_and_what_reads_plays() {
    let mut rng = Rng::new(99);
    let owners = ["S", "E", "N", "W", "?"];
    let kinds = ["FL", "GN", "MI", "EN", "BO", "SU", "FI", "??", "?N", "?A", "XX"];
    let phases = ["deploy", "move", "reaction", "over"];
    let keys = ["out=E", "timeouts=S3", "armies=SN", "obliged=a1", "react=a1", "react=a1+", "result=-:agreement", "view=N", "deployed=S"];
    let mut read = 0;
    for preset in RuleSet::preset_names() {
        for game in positions(preset).into_iter().step_by(4) {
            let base = game.position_string();
            for _ in 0..40 {
                let mut fields: Vec<String> = base.split(' ').map(str::to_owned).collect();
                for _ in 0..1 + rng.below(3) {
                    match rng.below(5) {
                        0 | 1 => {
                            let mut pieces: Vec<String> = fields[1].split(',').map(str::to_owned).collect();
                            let i = rng.below(pieces.len());
                            let (point, _) = pieces[i].split_once('=').unwrap();
                            let edit = match rng.below(3) {
                                0 => format!("{point}={}{}", owners[rng.below(5)], &pieces[i][point.len() + 2..]),
                                1 => format!("{point}={}{}", &pieces[i][point.len() + 1..point.len() + 2], kinds[rng.below(kinds.len())]),
                                _ => String::new(),
                            };
                            if edit.is_empty() {
                                pieces.remove(i);
                            } else {
                                pieces[i] = edit;
                            }
                            fields[1] = if pieces.is_empty() { "-".into() } else { pieces.join(",") };
                        }
                        2 => fields[2] = phases[rng.below(4)].to_owned(),
                        3 => fields[3] = owners[rng.below(4)].to_owned(),
                        _ => fields.push(keys[rng.below(keys.len())].to_owned()),
                    }
                }
                let text = fields.join(" ");
                let rules = RuleSet::preset(preset).unwrap();
                let Ok((pos, whose)) = Position::from_view_string_with(rules.clone(), &text) else { continue };
                read += 1;
                // A view prints back as the same view; a full string as the same string.
                let print = |p: &Position| whose.map_or_else(|| p.position_string(), |v| p.view_string(v));
                let printed = print(&pos);
                assert_eq!(print(&Position::from_view_string_with(rules, &printed).unwrap().0), printed);
                for &s in pos.rules().sides() {
                    let v = pos.view_string(s);
                    let (seen, _) = Position::from_view_string_with(pos.rules().clone(), &v).unwrap();
                    let _ = seen.legal_actions();
                }
                if matches!(pos.phase(), Phase::Move | Phase::Reaction) {
                    if let Some(&a) = pos.legal_actions().first() {
                        let mut next = pos.clone();
                        next.play(a).unwrap();
                    }
                    let mut g = Game::from_position_string(&text, 1).unwrap();
                    if let Some(side) = g.to_act() {
                        let info = g.info_state(side);
                        if let Some(&a) = info.legal_actions().first() {
                            g.play(a).unwrap();
                        }
                    }
                }
            }
        }
    }
    assert!(read > 50, "only {read} edited strings read");
}

/// The moved marks (`*`): public, so the same in every player's view string and in the
/// full string; the same as every player's beliefs say; never on an immobile kind; and
/// a game started from a view string knows them (no mine or flag among the moved).
#[test]
fn moved_marks_are_public_and_what_the_beliefs_say() {
    let mut seen = 0;
    for preset in RuleSet::preset_names() {
        for game in positions(preset) {
            let pos = game.position();
            let marked = |text: &str| -> Vec<String> {
                let pieces = text.split(' ').nth(1).unwrap();
                pieces.split(',').filter(|e| e.contains('*')).map(|e| e.split('=').next().unwrap().to_owned()).collect()
            };
            let full = marked(&pos.position_string());
            for (p, _, kind) in pos.pieces() {
                let name = pos.rules().board().name_of(p).to_owned();
                assert_eq!(full.contains(&name), pos.has_moved(p));
                if pos.has_moved(p) {
                    assert_ne!(pos.rules().mobility(kind), junqi::Mobility::Immobile, "{preset}: {name}");
                }
            }
            seen += full.len();
            for &player in pos.rules().sides() {
                let view = pos.view_string(player);
                assert_eq!(marked(&view), full, "{preset}");
                let beliefs = game.beliefs(player);
                for p in pos.occupied().iter() {
                    assert_eq!(beliefs.has_moved(p), pos.has_moved(p), "{preset}: {}", pos.rules().board().name_of(p));
                }
                if pos.phase() == Phase::Over {
                    continue;
                }
                // Read back, the viewer's beliefs know what moved.
                let started = Game::from_position_string_with(pos.rules().clone(), &view, 1).unwrap();
                let b = started.beliefs(player);
                for p in pos.occupied().iter().filter(|p| pos.has_moved(*p)) {
                    assert!(b.has_moved(p));
                    assert!(b.candidates(p).iter().all(|k| pos.rules().mobility(k) != junqi::Mobility::Immobile), "{preset}");
                }
            }
        }
    }
    assert!(seen > 100, "only {seen} moved pieces");
    // Marks read and print; a moved mine or flag, or a moved face-down piece, is refused.
    let text = "classic d6=SGN*,e7=NEN*,b12=NFL move S 4 4";
    let pos = Position::from_position_string(text).unwrap();
    assert_eq!(pos.position_string(), text);
    assert_eq!(pos.view_string(Side::South), "classic d6=SGN*,e7=N??*,b12=N?? move S 4 4 view=S");
    for bad in ["classic d6=SGN,b12=NFL* move S 4 4", "classic d6=SGN,a12=NMI* move S 4 4"] {
        assert!(matches!(Position::from_position_string(bad), Err(E::Inconsistent(ref m)) if m.contains("never moves")), "{bad}");
    }
    assert!(Position::from_position_string("classic d6=SGN*+N,b12=NFL move S 4 4").is_ok());
    assert!(matches!(Position::from_position_string("classic d6=SGN+N*,b12=NFL move S 4 4"), Err(E::Piece(_))));
    let fanqi = Position::random_start(RuleSet::preset("fanqi").unwrap(), 1).position_string();
    let down_moved = fanqi.replacen('!', "!*", 1);
    assert!(matches!(Position::from_position_string(&down_moved), Err(E::Inconsistent(ref m)) if m.contains("face down")));
    // A view's unknown piece that has moved gets a mobile stand-in, whatever the order.
    let (seen_pos, _) = Position::from_view_string_with(
        RuleSet::preset("classic").unwrap(),
        "classic d6=SGN*,a11=N??,b11=N??,c11=N??,d11=N??,e11=N??,a12=N??*,b12=N??* move S 4 4 view=S",
    )
    .unwrap();
    for name in ["a12", "b12"] {
        let (_, kind) = seen_pos.piece_at(seen_pos.rules().board().point(name).unwrap()).unwrap();
        assert_ne!(seen_pos.rules().mobility(kind), junqi::Mobility::Immobile, "{name}: {kind}");
    }
}

/// The checked-in fuzz corpus of position strings reads as it did: each input is read
/// or refused without a panic, and what reads prints back to a string that reads the same.
#[test]
fn the_fuzz_corpus_of_position_strings_still_reads() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/corpus/position_string");
    let mut read = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(text) = String::from_utf8(std::fs::read(&path).unwrap()) else { continue };
        let Ok(pos) = Position::from_position_string(&text) else { continue };
        let printed = pos.position_string();
        assert_eq!(Position::from_position_string(&printed).unwrap().position_string(), printed, "{path:?}");
        for &side in pos.rules().sides() {
            let view = pos.view_string(side);
            let (seen, _) = Position::from_view_string_with(pos.rules().clone(), &view).unwrap();
            assert_eq!(seen.view_string(side), view, "{path:?}");
        }
        read += 1;
    }
    assert!(read >= 20, "only {read} inputs of the corpus read");
}
