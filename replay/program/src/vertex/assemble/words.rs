//! One slot's four words built from claims. Each part of a line claims the bits it states;
//! the vector and the scalar unit share the input, constant, address, condition, saturate
//! and output fields, and branch targets, the BRB/CLB boolean and the TXL texture unit share
//! bits with sources, so a claim of bits already claimed with other values is refused,
//! naming both claims. Bits nobody claims keep the idle slot's values
//! ([`VertexInstruction::idle`]).

use crate::vertex::fields::{self as f, Field};
use crate::vertex::instruction::VertexInstruction;

pub(super) struct Words {
    words: [u32; 4],
    owned: [u32; 4],
    owners: Vec<([u32; 4], String)>,
}

impl Words {
    /// The idle slot, nothing claimed.
    pub(super) fn idle() -> Words {
        Words {
            words: VertexInstruction::idle(0).to_words(),
            owned: [0; 4],
            owners: Vec::new(),
        }
    }

    /// The words as claimed so far.
    pub(super) fn words(&self) -> [u32; 4] {
        self.words
    }

    /// Claim the bits of `mask` with the values in `value`, for `what`.
    fn claim_bits(&mut self, value: [u32; 4], mask: [u32; 4], what: &str) -> Result<(), String> {
        for k in 0..4 {
            let clash = self.owned[k] & mask[k] & (self.words[k] ^ value[k]);
            if clash != 0 {
                let owner = self
                    .owners
                    .iter()
                    .find(|(m, _)| m[k] & clash != 0)
                    .map_or("another field", |(_, w)| w.as_str());
                return Err(format!(
                    "{what} contradicts {owner}: they share bits of the slot"
                ));
            }
        }
        for k in 0..4 {
            self.words[k] = (self.words[k] & !mask[k]) | (value[k] & mask[k]);
            self.owned[k] |= mask[k];
        }
        self.owners.push((mask, what.to_string()));
        Ok(())
    }

    /// Claim `field` with `value`, which must fit it.
    pub(super) fn claim(&mut self, field: Field, value: u32, what: &str) -> Result<(), String> {
        if u64::from(value) >= 1u64 << field.width {
            return Err(format!("{what}: {value} does not fit {} bits", field.width));
        }
        let (mut v, mut m) = ([0; 4], [0; 4]);
        field.put(&mut v, value);
        field.put(&mut m, u32::MAX);
        self.claim_bits(v, m, what)
    }

    /// Claim the bits `mask` of source operand `n`'s 17-bit field with `value`.
    pub(super) fn claim_operand(
        &mut self,
        n: usize,
        value: u32,
        mask: u32,
        what: &str,
    ) -> Result<(), String> {
        let (mut v, mut m) = ([0; 4], [0; 4]);
        f::put_operand(&mut v, n, value);
        f::put_operand(&mut m, n, mask);
        self.claim_bits(v, m, what)
    }
}
