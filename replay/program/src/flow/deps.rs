//! [`DepSet`]: a set of texture units and input attributes a value may depend on.

use serde::{Serialize, Serializer};

use crate::fragment::InputAttribute;

/// Bits 0–15: texture units 0–15; bits 16–31: input attributes 0–15 (rsx-microcode.md B.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DepSet(pub u32);

impl DepSet {
    /// Nothing.
    pub const EMPTY: DepSet = DepSet(0);

    /// Texture unit `unit` (0–15).
    pub fn texture(unit: u8) -> DepSet {
        DepSet(1 << (unit & 0xF))
    }

    /// Input attribute `attr`.
    pub fn input(attr: InputAttribute) -> DepSet {
        DepSet(1 << (16 + u32::from(attr.0 & 0xF)))
    }

    /// Union.
    #[must_use]
    pub fn union(self, other: DepSet) -> DepSet {
        DepSet(self.0 | other.0)
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Texture units in the set, ascending.
    pub fn textures(self) -> impl Iterator<Item = u8> {
        (0..16u8).filter(move |u| self.0 & (1 << u) != 0)
    }

    /// Input attributes in the set, ascending.
    pub fn inputs(self) -> impl Iterator<Item = InputAttribute> {
        (0..16u8)
            .filter(move |a| self.0 & (1 << (16 + u32::from(*a))) != 0)
            .map(InputAttribute)
    }
}

impl Serialize for DepSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let textures: Vec<u8> = self.textures().collect();
        let inputs: Vec<InputAttribute> = self.inputs().collect();
        let mut st = s.serialize_struct("DepSet", 2)?;
        st.serialize_field("textures", &textures)?;
        st.serialize_field("inputs", &inputs)?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members() {
        let d = DepSet::texture(3)
            .union(DepSet::input(InputAttribute::COL0))
            .union(DepSet::texture(15));
        assert_eq!(d.textures().collect::<Vec<_>>(), [3, 15]);
        assert_eq!(d.inputs().collect::<Vec<_>>(), [InputAttribute::COL0]);
        assert!(!d.is_empty() && DepSet::EMPTY.is_empty());
    }
}
