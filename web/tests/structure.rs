//! The modules of `web/src` depend on each other without a circle: each may use the
//! ones below it, none of its users (what two modules share lives below both, e.g.
//! `request` and `newgame` below `api` and `lobby`; `App` knows nothing of `flow`).
//! Read from the sources: a `crate::NAME` outside comments is a use of module NAME.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module name -> the modules its code names (`crate::x`), comments left out.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut g = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("web/src") {
        let path = entry.expect("an entry").path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else { continue };
        let text = if path.is_dir() {
            match std::fs::read_to_string(path.join("mod.rs")) {
                Ok(t) => t,
                Err(_) => continue,
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            std::fs::read_to_string(&path).expect("a source file")
        } else {
            continue;
        };
        let mut uses = BTreeSet::new();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            let mut rest = line;
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + "crate::".len()..];
                let used: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !used.is_empty() && used != name && used.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                    uses.insert(used);
                }
            }
        }
        g.insert(name, uses);
    }
    g
}

/// A circle of the graph, if there is one.
fn circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut c = path[i..].to_vec();
            c.push(n.to_owned());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_owned());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    g.keys().find_map(|n| visit(n, g, &mut Vec::new(), &mut done))
}

#[test]
fn the_modules_use_each_other_without_a_circle() {
    let g = graph();
    for m in ["api", "app", "flow", "lobby", "players", "request", "newgame", "store"] {
        assert!(g.contains_key(m), "no module {m} in web/src: {:?}", g.keys());
    }
    assert!(g["api"].contains("lobby") && g["flow"].contains("app"), "the reading of the sources is broken: {g:?}");
    if let Some(c) = circle(&g) {
        panic!("the modules of web/src use each other in a circle: {}", c.join(" -> "));
    }
}

#[test]
fn a_circle_is_found() {
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(circle(&g), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
}
