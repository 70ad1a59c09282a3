//! `mahjong contacts`: the players this data directory has sat with, by key — each with its
//! fingerprint (the four words the app shows too), the names it used, the tables played
//! together, and the nickname this player gave it (`--nickname FINGERPRINT NAME`, kept here
//! only; `--nickname FINGERPRINT ""` removes it).

use anyhow::{Result, anyhow, bail};
use clap::Args;
use std::path::PathBuf;

use crate::ledger::{data_dir, open_existing};

/// Arguments of `mahjong contacts`.
#[derive(Args, Debug)]
pub struct ContactsArgs {
    /// The player's data directory (default: the platform data directory).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Give the friend of this fingerprint a name of your own: FINGERPRINT NAME.
    #[arg(long, num_args = 2, value_names = ["FINGERPRINT", "NAME"])]
    pub nickname: Option<Vec<String>>,
    /// One JSON object per line per contact.
    #[arg(long)]
    pub json: bool,
}

/// Runs `mahjong contacts`.
pub fn run(args: ContactsArgs) -> Result<()> {
    let dir = data_dir(args.data_dir);
    let Some(store) = open_existing(&dir)? else {
        if args.nickname.is_some() {
            bail!("no store in {}: nobody to name yet", dir.display());
        }
        if !args.json {
            println!("no contacts: no store in {}", dir.display());
        }
        return Ok(());
    };
    if let Some(v) = &args.nickname {
        let (fp, name) = (&v[0], &v[1]);
        let fp = mahjong_store::Fingerprint::parse(fp).map_err(|e| anyhow!("--nickname: {e}"))?;
        let found = store.contacts_with(fp)?;
        let [c] = found.as_slice() else {
            bail!(
                "--nickname: {} player(s) with the fingerprint {fp} in {}",
                found.len(),
                dir.display()
            );
        };
        store.set_nickname(&c.key, Some(name))?;
        let c = store.contact(&c.key)?.unwrap_or_else(|| c.clone());
        println!("{fp}: {}", c.shown_name());
        return Ok(());
    }
    let contacts = store.contacts()?;
    if args.json {
        for c in &contacts {
            println!(
                "{}",
                serde_json::json!({
                    "key": mahjong_store::to_hex(c.key.as_bytes()),
                    "fingerprint": c.fingerprint().to_string(),
                    "fingerprint_zh": c.fingerprint().words(mahjong_rules::explain_text::Lang::Zh),
                    "names": c.names,
                    "nickname": c.nickname,
                    "first_ms": c.first_ms,
                    "last_ms": c.last_ms,
                    "tables": c.tables,
                })
            );
        }
        return Ok(());
    }
    if contacts.is_empty() {
        println!("no contacts yet in {}", dir.display());
        return Ok(());
    }
    for c in &contacts {
        let mut line = format!("{}  {}", c.fingerprint(), c.shown_name());
        let others: Vec<&str> = c
            .names
            .iter()
            .map(String::as_str)
            .filter(|n| *n != c.shown_name())
            .collect();
        if !others.is_empty() {
            line.push_str(&format!(" (also {})", others.join(", ")));
        }
        let t = c.tables;
        line.push_str(&format!(", {t} table{}", if t == 1 { "" } else { "s" }));
        println!("{line}");
    }
    Ok(())
}
