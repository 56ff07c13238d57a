//! The character sets and collations the server describes itself with: SHOW
//! CHARACTER SET and SHOW COLLATION (the SQL front) and
//! information_schema.CHARACTER_SETS and COLLATIONS (the SQLite engine) read
//! these one lists, so the two views cannot drift apart.

/// A character set as SHOW CHARACTER SET lists it.
pub struct CharacterSet {
    pub name: &'static str,
    pub description: &'static str,
    pub default_collation: &'static str,
    /// Bytes a character takes at most.
    pub max_len: i64,
}

/// A collation as SHOW COLLATION lists it.
pub struct Collation {
    pub name: &'static str,
    pub charset: &'static str,
    pub id: i64,
    pub is_default: bool,
}

pub const CHARACTER_SETS: [CharacterSet; 4] = [
    CharacterSet { name: "utf8mb4", description: "UTF-8 Unicode", default_collation: "utf8mb4_general_ci", max_len: 4 },
    CharacterSet { name: "utf8mb3", description: "UTF-8 Unicode", default_collation: "utf8mb3_general_ci", max_len: 3 },
    CharacterSet { name: "latin1", description: "cp1252 West European", default_collation: "latin1_swedish_ci", max_len: 1 },
    CharacterSet { name: "binary", description: "Binary pseudo charset", default_collation: "binary", max_len: 1 },
];

pub const COLLATIONS: [Collation; 6] = [
    Collation { name: "utf8mb4_general_ci", charset: "utf8mb4", id: 45, is_default: true },
    Collation { name: "utf8mb4_bin", charset: "utf8mb4", id: 46, is_default: false },
    Collation { name: "utf8mb4_0900_ai_ci", charset: "utf8mb4", id: 255, is_default: false },
    Collation { name: "utf8mb3_general_ci", charset: "utf8mb3", id: 33, is_default: true },
    Collation { name: "latin1_swedish_ci", charset: "latin1", id: 8, is_default: true },
    Collation { name: "binary", charset: "binary", id: 63, is_default: true },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_default_collation_is_listed_as_its_charsets_default() {
        for cs in &CHARACTER_SETS {
            let c = COLLATIONS.iter().find(|c| c.name == cs.default_collation).expect("listed");
            assert!(c.is_default && c.charset == cs.name, "{}", cs.name);
        }
    }
}
