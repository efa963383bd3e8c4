//! The migration of a junqi-web 0.1.0 SQLite file, run once at start
//! ([`crate::start`]). 0.1.0 kept each game as one row of `games` holding its whole
//! record; this version keeps a row and the record's entries ([`crate::store`]). The
//! store renames the old table to `games_0_1` (kept as it was, so nothing is lost),
//! creates the tables and writes each old game as this module converts it: the table
//! rebuilt from the old row (`Table::from_0_1`) and written as a new game is
//! (`Table::created_write`), at its old version — in one transaction. A row that does
//! not convert stays in `games_0_1` only: it is reported on stderr and listed among the
//! games that could not be loaded ([`crate::app::App::broken`]) at every start, until
//! it converts (an operator who fixes the row there gets it migrated at the next
//! start). A file already migrated, a new file, and PostgreSQL are left alone.

use crate::store::{BadRow, Migrated, OldGame, Store, StoredGame, Write};
use crate::table::Table;

/// Converts one 0.1.0 row: the write of its game as this version stores it. The write is
/// read back as the server will read it, so a game that converts also loads.
pub fn convert(old: &OldGame) -> Result<Write, String> {
    let table = Table::from_0_1(old)?;
    let w = table.created_write(old.updated_ms);
    let created = w.created.as_ref().expect("a new game's write");
    let stored = StoredGame {
        id: w.id.clone(),
        rules: created.rules.clone(),
        head: created.head.clone(),
        seats: w.seats.clone().unwrap_or_default(),
        settings: created.settings.clone(),
        state: w.state.clone(),
        pending: w.pending.clone().unwrap_or_default(),
        version: w.version,
        result: w.public.result.clone(),
        entries_from: 0,
        entries: w.entries.clone(),
        rated: false,
    };
    Table::from_stored(&stored)?;
    Ok(w)
}

/// Migrates the store's 0.1.0 games, if it has any (see the module's documentation),
/// and says so on stderr. Answers the rows kept unconverted, by game id (a row whose id
/// does not read is only reported).
pub async fn run(store: &Store) -> Result<Vec<(String, String)>, String> {
    let Migrated {
        renamed,
        converted,
        kept,
    } = store
        .migrate_0_1(&convert)
        .await
        .map_err(|e| format!("migrating the junqi-web 0.1.0 games: {e}"))?;
    if renamed || !converted.is_empty() {
        eprintln!(
            "junqi-web: migrated {} game(s) of a junqi-web 0.1.0 database (the old table is kept as games_0_1)",
            converted.len()
        );
    }
    let mut broken = Vec::with_capacity(kept.len());
    for BadRow { id, reason } in kept {
        eprintln!(
            "junqi-web: 0.1.0 game {} not migrated (kept in games_0_1): {reason}",
            id.as_deref().unwrap_or("(unreadable id)")
        );
        if let Some(id) = id {
            broken.push((
                id,
                format!("not migrated from junqi-web 0.1.0 (kept in games_0_1): {reason}"),
            ));
        }
    }
    Ok(broken)
}
