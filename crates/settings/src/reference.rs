//! The reference table of docs/configuration.md, written from the settings
//! table so the documentation cannot drift from the code: a test compares the
//! two, and `TURNSTILE_WRITE_DOCS=1 cargo test -p turnstile-settings` rewrites
//! the block between the markers.

use crate::kind::Kind;
use crate::table::{Scope, Setting, SETTINGS};

pub const BEGIN: &str = "<!-- settings reference: written from crates/settings/src/table.rs; do not edit by hand -->";
pub const END: &str = "<!-- end of settings reference -->";

/// The markdown table, one row per setting.
pub fn markdown() -> String {
    let mut out = String::from("| name | start-up | variable | default | accepts | meaning |\n| --- | --- | --- | --- | --- | --- |\n");
    for s in SETTINGS {
        out.push_str(&format!("| `{}` | {} | {} | {} | {} | {} |\n", s.name, if s.startup { "yes" } else { "—" }, variable_of(s), default_of(s), accepts_of(s), s.help.replace('|', "\\|")));
    }
    out
}

fn variable_of(s: &Setting) -> &'static str {
    match (s.scope, s.dynamic) {
        (Scope::NoVariable, _) => "—",
        (Scope::Global, true) => "global, SET",
        (Scope::Global, false) => "global, read-only",
        (Scope::Session, _) => "session, SET",
        (Scope::Both, true) => "global and session, SET",
        (Scope::Both, false) => "global and session, read-only",
    }
}

fn default_of(s: &Setting) -> String {
    match (s.default, s.kind) {
        (_, Kind::Secret) => "(none)".to_string(),
        ("", Kind::Str) if s.startup => "\"\"".to_string(),
        ("", _) => "(computed)".to_string(),
        (d, _) if d.len() > 24 => format!("`{}…`", &d[..20]),
        (d, _) => format!("`{}`", d),
    }
}

fn accepts_of(s: &Setting) -> String {
    match s.kind {
        Kind::Int { min, max } => match crate::table::block_bytes(s.name) {
            1 => format!("{} – {}", thousands(min), thousands(max)),
            block => format!("{} – {}, in multiples of {}", thousands(min), thousands(max), thousands(block)),
        },
        Kind::Float { min, max } => format!("{} – {}", min, max),
        Kind::Choice(names) => names.iter().map(|n| format!("`{}`", n)).collect::<Vec<_>>().join(", "),
        Kind::Bool => "ON, OFF".to_string(),
        Kind::Str | Kind::Secret => "text".to_string(),
    }
}

/// 1048576 → 1,048,576.
fn thousands(n: i128) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{}", out)
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_configuration_md_lists_every_setting_as_the_table_says() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/configuration.md");
        let doc = std::fs::read_to_string(path).expect("docs/configuration.md");
        let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else { panic!("docs/configuration.md lacks the settings reference markers") };
        let block = format!("{}\n\n{}\n", BEGIN, markdown());
        if doc[b..e] != block {
            if std::env::var("TURNSTILE_WRITE_DOCS").is_ok() {
                std::fs::write(path, format!("{}{}{}", &doc[..b], block, &doc[e..])).expect("write docs/configuration.md");
                return;
            }
            panic!("docs/configuration.md's settings reference is out of date: run TURNSTILE_WRITE_DOCS=1 cargo test -p turnstile-settings");
        }
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(-20), "-20");
        assert_eq!(thousands(18446744073709551615), "18,446,744,073,709,551,615");
    }
}
