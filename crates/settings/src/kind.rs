//! What values a setting takes, and the one check every reader uses: the
//! command line, the TOML file and SET GLOBAL all turn a value into its
//! canonical text here, so a range is written once and enforced the same way
//! everywhere.

/// The type of a setting and the values it allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A whole number in `min..=max` (i128 so that u64::MAX fits, as
    /// sql_select_limit's default does).
    Int { min: i128, max: i128 },
    /// ON or OFF (true/false, 1/0 are accepted too).
    Bool,
    /// Free text.
    Str,
    /// One of these names (matched without regard to case; stored as written here).
    Choice(&'static [&'static str]),
    /// A number with a fraction in `min..=max` (seconds, as max_statement_time).
    Float { min: f64, max: f64 },
    /// Free text never shown: no default, may come from the environment
    /// (TURNSTILE_<NAME>), not a variable.
    Secret,
}

impl Kind {
    /// `text` as this kind stores it, or why it is not allowed (the message
    /// names the range or the choices).
    pub fn check(&self, text: &str) -> Result<String, String> {
        match *self {
            Kind::Int { min, max } => {
                let n: i128 = text.trim().parse().map_err(|_| format!("'{}' is not a whole number", text))?;
                if n < min || n > max {
                    return Err(format!("{} is not in {}..={}", n, min, max));
                }
                Ok(n.to_string())
            }
            Kind::Bool => bool_of(text).map(|b| if b { "ON" } else { "OFF" }.to_string()).ok_or_else(|| format!("'{}' is not ON, OFF, true, false, 1 or 0", text)),
            Kind::Str | Kind::Secret => Ok(text.to_string()),
            Kind::Choice(names) => names.iter().find(|n| n.eq_ignore_ascii_case(text.trim())).map(|n| n.to_string()).ok_or_else(|| format!("'{}' is not one of {}", text, names.join(", "))),
            Kind::Float { min, max } => {
                let f: f64 = text.trim().parse().map_err(|_| format!("'{}' is not a number", text))?;
                if !(min..=max).contains(&f) {
                    return Err(format!("{} is not in {}..={}", f, min, max));
                }
                Ok(f.to_string())
            }
        }
    }

    /// What values it accepts, for --help and the documentation.
    pub fn accepts(&self) -> String {
        match *self {
            Kind::Int { min, max } => format!("{}..={}", min, max),
            Kind::Bool => "ON, OFF".to_string(),
            Kind::Str | Kind::Secret => "text".to_string(),
            Kind::Choice(names) => names.join(", "),
            Kind::Float { min, max } => format!("{}..={}", min, max),
        }
    }
}

/// ON/OFF, true/false, yes/no, 1/0 (any case).
pub fn bool_of(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Some(true),
        "off" | "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_are_checked_at_and_beyond_their_edges() {
        let k = Kind::Int { min: 1, max: 100_000 };
        assert_eq!(k.check("1").unwrap(), "1");
        assert_eq!(k.check("100000").unwrap(), "100000");
        assert_eq!(k.check("0").unwrap_err(), "0 is not in 1..=100000");
        assert_eq!(k.check("100001").unwrap_err(), "100001 is not in 1..=100000");
        assert!(k.check("99999999999999999999999999999999999999999999").is_err());
        assert!(k.check("12abc").is_err());
        assert!(k.check("").is_err());
    }

    #[test]
    fn choices_match_without_case_and_keep_their_spelling() {
        let k = Kind::Choice(&["pool-of-threads", "one-thread-per-connection"]);
        assert_eq!(k.check("POOL-of-threads").unwrap(), "pool-of-threads");
        assert_eq!(k.check("bogus").unwrap_err(), "'bogus' is not one of pool-of-threads, one-thread-per-connection");
    }

    #[test]
    fn bools_and_floats() {
        assert_eq!(Kind::Bool.check("true").unwrap(), "ON");
        assert_eq!(Kind::Bool.check("0").unwrap(), "OFF");
        assert!(Kind::Bool.check("maybe").is_err());
        let f = Kind::Float { min: 0.0, max: 10.0 };
        assert_eq!(f.check("2.5").unwrap(), "2.5");
        assert!(f.check("10.5").is_err());
        assert!(f.check("NaN").is_err());
        assert!(f.check("inf").is_err());
    }
}
