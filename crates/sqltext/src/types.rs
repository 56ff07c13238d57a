//! The MySQL column types Turnstile understands (`Base`), by the names SQL
//! text gives them.
//!
//! Why here, below the engines: a type name is read from SQL text (DDL, CAST)
//! and a value's text is read by its type (`temporal::parse_temporal`), by the
//! SQL front as well as by the SQLite engine, which keeps `Base` in its table
//! definitions (`turnstile_meta`, as JSON: the variant names are its stored
//! form and must not change).

use serde::{Deserialize, Serialize};

/// The MySQL base types Turnstile understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Base {
    TinyInt,
    SmallInt,
    MediumInt,
    Int,
    BigInt,
    Decimal,
    Float,
    Double,
    Bit,
    Char,
    VarChar,
    TinyText,
    Text,
    MediumText,
    LongText,
    Binary,
    VarBinary,
    TinyBlob,
    Blob,
    MediumBlob,
    LongBlob,
    Date,
    DateTime,
    Timestamp,
    Time,
    Year,
    Enum,
    Set,
    Json,
}

impl Base {
    pub fn from_name(name: &str) -> Option<Base> {
        Some(match name.to_ascii_uppercase().as_str() {
            "TINYINT" | "INT1" | "BOOL" | "BOOLEAN" => Base::TinyInt,
            "SMALLINT" | "INT2" => Base::SmallInt,
            "MEDIUMINT" | "INT3" | "MIDDLEINT" => Base::MediumInt,
            "INT" | "INTEGER" | "INT4" => Base::Int,
            "BIGINT" | "INT8" | "SERIAL" => Base::BigInt,
            "DECIMAL" | "DEC" | "NUMERIC" | "FIXED" => Base::Decimal,
            "FLOAT" | "FLOAT4" => Base::Float,
            "DOUBLE" | "REAL" | "FLOAT8" => Base::Double,
            "BIT" => Base::Bit,
            "CHAR" | "CHARACTER" | "NCHAR" => Base::Char,
            "VARCHAR" | "NVARCHAR" | "VARCHARACTER" => Base::VarChar,
            "TINYTEXT" => Base::TinyText,
            "TEXT" => Base::Text,
            "MEDIUMTEXT" | "LONG" => Base::MediumText,
            "LONGTEXT" => Base::LongText,
            "BINARY" => Base::Binary,
            "VARBINARY" => Base::VarBinary,
            "TINYBLOB" => Base::TinyBlob,
            "BLOB" => Base::Blob,
            "MEDIUMBLOB" => Base::MediumBlob,
            "LONGBLOB" => Base::LongBlob,
            "DATE" => Base::Date,
            "DATETIME" => Base::DateTime,
            "TIMESTAMP" => Base::Timestamp,
            "TIME" => Base::Time,
            "YEAR" => Base::Year,
            "ENUM" => Base::Enum,
            "SET" => Base::Set,
            "JSON" => Base::Json,
            _ => return None,
        })
    }

    pub fn sql_name(self) -> &'static str {
        match self {
            Base::TinyInt => "tinyint",
            Base::SmallInt => "smallint",
            Base::MediumInt => "mediumint",
            Base::Int => "int",
            Base::BigInt => "bigint",
            Base::Decimal => "decimal",
            Base::Float => "float",
            Base::Double => "double",
            Base::Bit => "bit",
            Base::Char => "char",
            Base::VarChar => "varchar",
            Base::TinyText => "tinytext",
            Base::Text => "text",
            Base::MediumText => "mediumtext",
            Base::LongText => "longtext",
            Base::Binary => "binary",
            Base::VarBinary => "varbinary",
            Base::TinyBlob => "tinyblob",
            Base::Blob => "blob",
            Base::MediumBlob => "mediumblob",
            Base::LongBlob => "longblob",
            Base::Date => "date",
            Base::DateTime => "datetime",
            Base::Timestamp => "timestamp",
            Base::Time => "time",
            Base::Year => "year",
            Base::Enum => "enum",
            Base::Set => "set",
            Base::Json => "json",
        }
    }

    /// An integer type's display width when none is given, as MariaDB
    /// prints it (int(11), int(10) unsigned); 0 for other types.
    pub fn display_width(self, unsigned: bool) -> u64 {
        match (self, unsigned) {
            (Base::TinyInt, false) => 4,
            (Base::TinyInt, true) => 3,
            (Base::SmallInt, false) => 6,
            (Base::SmallInt, true) => 5,
            (Base::MediumInt, false) => 9,
            (Base::MediumInt, true) => 8,
            (Base::Int, false) => 11,
            (Base::Int, true) => 10,
            (Base::BigInt, _) => 20,
            _ => 0,
        }
    }

    pub fn is_integer(self) -> bool {
        matches!(self, Base::TinyInt | Base::SmallInt | Base::MediumInt | Base::Int | Base::BigInt | Base::Bit | Base::Year)
    }
    pub fn is_numeric(self) -> bool {
        self.is_integer() || matches!(self, Base::Decimal | Base::Float | Base::Double)
    }
    pub fn is_binary(self) -> bool {
        matches!(self, Base::Binary | Base::VarBinary | Base::TinyBlob | Base::Blob | Base::MediumBlob | Base::LongBlob)
    }
    pub fn is_text(self) -> bool {
        matches!(self, Base::Char | Base::VarChar | Base::TinyText | Base::Text | Base::MediumText | Base::LongText | Base::Enum | Base::Set)
    }
    pub fn is_temporal(self) -> bool {
        matches!(self, Base::Date | Base::DateTime | Base::Timestamp | Base::Time)
    }
    /// Largest length in characters (text) or bytes (binary) a value may have.
    pub fn max_len(self, declared: Option<u64>) -> Option<u64> {
        match self {
            Base::Char | Base::VarChar | Base::Binary | Base::VarBinary => Some(declared.unwrap_or(1)),
            Base::TinyText | Base::TinyBlob => Some(255),
            Base::Text | Base::Blob => Some(65535),
            Base::MediumText | Base::MediumBlob => Some(16_777_215),
            _ => None,
        }
    }
    /// Inclusive range of an integer type.
    pub fn int_range(self, unsigned: bool) -> Option<(i128, i128)> {
        let bits = match self {
            Base::TinyInt => 8,
            Base::SmallInt => 16,
            Base::MediumInt => 24,
            Base::Int => 32,
            Base::BigInt => 64,
            _ => return None,
        };
        Some(if unsigned { (0, (1i128 << bits) - 1) } else { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) })
    }
}
