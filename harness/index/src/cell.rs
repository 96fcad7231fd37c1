//! One value of a row: what a column's getter returns and a prepared statement binds.

use rusqlite::types::{ToSql, ToSqlOutput, ValueRef};
use std::borrow::Cow;

/// A value bound to a statement parameter: SQLite's four storage classes that the index uses.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// SQL NULL: unknown, or not applicable (each column's doc says which).
    Null,
    /// A 64-bit integer (also booleans, as 0 and 1).
    Int(i64),
    /// A 64-bit float. SQLite stores NaN as NULL.
    Real(f64),
    /// UTF-8 text.
    Text(Cow<'static, str>),
}

impl Cell {
    /// A boolean as 0 or 1.
    pub fn bool(b: bool) -> Cell {
        Cell::Int(i64::from(b))
    }

    /// Text known at compile time (an enumerated name).
    pub fn name(s: &'static str) -> Cell {
        Cell::Text(Cow::Borrowed(s))
    }

    /// Text made at run time.
    pub fn text(s: String) -> Cell {
        Cell::Text(Cow::Owned(s))
    }

    /// Append the value to `key` so that two cells append the same bytes exactly when they
    /// store the same value (a real by its bits): for finding equal rows.
    pub fn write_key(&self, key: &mut Vec<u8>) {
        match self {
            Cell::Null => key.push(0),
            Cell::Int(v) => {
                key.push(1);
                key.extend_from_slice(&v.to_le_bytes());
            }
            Cell::Real(v) => {
                key.push(2);
                key.extend_from_slice(&v.to_bits().to_le_bytes());
            }
            Cell::Text(s) => {
                key.push(3);
                key.extend_from_slice(&s.len().to_le_bytes());
                key.extend_from_slice(s.as_bytes());
            }
        }
    }

    /// An optional value, NULL when absent.
    pub fn opt<T: Into<Cell>>(v: Option<T>) -> Cell {
        v.map_or(Cell::Null, Into::into)
    }
}

macro_rules! int_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Cell {
            fn from(v: $t) -> Cell {
                Cell::Int(i64::from(v))
            }
        }
    )*};
}
int_from!(u8, u16, u32, i32, i64);

impl From<usize> for Cell {
    fn from(v: usize) -> Cell {
        Cell::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

impl From<u64> for Cell {
    /// Values above `i64::MAX` (memory block ids are opaque 64-bit numbers in v4/v5 captures)
    /// keep their bits: SQLite integers are signed.
    fn from(v: u64) -> Cell {
        Cell::Int(v as i64)
    }
}

impl From<bool> for Cell {
    fn from(v: bool) -> Cell {
        Cell::bool(v)
    }
}

impl From<f32> for Cell {
    fn from(v: f32) -> Cell {
        Cell::Real(f64::from(v))
    }
}

impl From<&'static str> for Cell {
    fn from(v: &'static str) -> Cell {
        Cell::name(v)
    }
}

impl From<String> for Cell {
    fn from(v: String) -> Cell {
        Cell::text(v)
    }
}

impl ToSql for Cell {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Cell::Null => ValueRef::Null,
            Cell::Int(v) => ValueRef::Integer(*v),
            Cell::Real(v) => ValueRef::Real(*v),
            Cell::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}
