//! Standard padded base64 (RFC 4648 §4), the encoding of every `wire_base64` field.
//!
//! Decoding accepts only the canonical text of some byte string: the standard
//! alphabet, `=` padding to a multiple of four characters, zero unused bits, no
//! whitespace. Anything else is refused, so one byte string has exactly one text.

use std::fmt;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Why a text is not canonical padded base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base64Error(String);

impl fmt::Display for Base64Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Base64Error {}

/// The padded base64 text of `data`.
pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity((data.len() + 2) / 3 * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let sextets = [(n >> 18) & 63, (n >> 12) & 63, (n >> 6) & 63, n & 63];
        for (i, s) in sextets.iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[*s as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn sextet(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// The bytes of a canonical padded base64 text.
pub fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return Err(Base64Error(format!("length {} is not a multiple of 4", bytes.len())));
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let quads = bytes.len() / 4;
    for (q, quad) in bytes.chunks(4).enumerate() {
        let last = q + 1 == quads;
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return Err(Base64Error(format!("misplaced padding in quad {q}")));
        }
        let mut n: u32 = 0;
        for (i, &c) in quad[..4 - pad].iter().enumerate() {
            let v = sextet(c).ok_or_else(|| Base64Error(format!("byte {:#04x} at {} is not base64", c, q * 4 + i)))?;
            n |= v << (18 - 6 * i);
        }
        let keep = 3 - pad;
        let unused = match pad {
            0 => 0,
            1 => n & 0xFF,
            _ => n & 0xFFFF,
        };
        if unused != 0 {
            return Err(Base64Error("non-zero unused bits in the final quad".to_string()));
        }
        let b = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&b[..keep]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4648_vectors() {
        let cases: [(&[u8], &str); 7] = [
            (b"", ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg=="),
            (b"fooba", "Zm9vYmE="),
            (b"foobar", "Zm9vYmFy"),
        ];
        for (raw, text) in cases {
            assert_eq!(encode(raw), text);
            assert_eq!(decode(text).unwrap(), raw);
        }
    }

    #[test]
    fn every_byte_value_round_trips() {
        let data: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for len in 0..data.len() {
            assert_eq!(decode(&encode(&data[..len])).unwrap(), &data[..len]);
        }
    }

    #[test]
    fn non_canonical_text_is_refused() {
        for bad in ["Zg", "Zg=", "Zh==", "Zm9=", "Zg==Zg==", "Z===", "Zm9v\n", " Zm9v", "Zm-v", "Zm_v", "===="] {
            assert!(decode(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
