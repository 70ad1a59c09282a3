//! Every character the app can draw is in the font it draws with. The app bundles a subset of
//! Noto Sans CJK (assets/fonts, made by `assets/fonts/make-subset.sh` from the same files this
//! test reads); a character missing from it shows as nothing at all (a 战绩 button that
//! read as a blank box, the story's colour keys ■ gone). So a text that gains a character
//! fails here until the subset is made again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Sent as characters but shown as words (crates/desktop/src/screens/talk.rs): the font has
/// no emoji.
const SHOWN_AS_WORDS: [char; 2] = ['👍', '😂'];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// What make-subset.sh cuts the font to: printable ASCII and every other character of the
/// app's sources, the rule books it shows, the rules crate's explanations and names, and the
/// fingerprint words.
fn characters() -> BTreeSet<char> {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root.join("crates/desktop/src"), &mut files);
    for doc in ["docs/rules.en.md", "docs/rules.zh.md"] {
        files.push(root.join(doc));
    }
    for src in [
        "crates/rules/src/explain_text.rs",
        "crates/rules/src/names.rs",
        "crates/store/src/fingerprint_words.rs",
    ] {
        files.push(root.join(src));
    }
    let mut chars: BTreeSet<char> = (0x20u8..0x7f).map(char::from).collect();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        chars.extend(text.chars().filter(|&c| u32::from(c) > 0x7f));
    }
    chars.extend("×·—–…“”‘’←→↑↓✓".chars());
    chars
}

#[test]
fn every_character_the_app_draws_is_in_its_font() {
    let chars = characters();
    assert!(
        chars.contains(&'胡') && chars.contains(&'绩'),
        "the sources were read"
    );
    for weight in ["Regular", "Bold"] {
        let path = root().join(format!("assets/fonts/MahjongSans-{weight}.otf"));
        let bytes = std::fs::read(&path).expect("the font");
        let face = ttf_parser::Face::parse(&bytes, 0).expect("an OpenType font");
        let missing: String = chars
            .iter()
            .filter(|c| !c.is_control() && !SHOWN_AS_WORDS.contains(c))
            .filter(|&&c| face.glyph_index(c).is_none())
            .collect();
        assert!(
            missing.is_empty(),
            "MahjongSans-{weight} lacks {missing:?}: run assets/fonts/make-subset.sh"
        );
    }
}
