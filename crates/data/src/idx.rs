//! The IDX format of LeCun's MNIST files (and Fashion-MNIST's): magic `0x00 0x00 type ndim`,
//! big-endian `u32` sizes, then the data. Only unsigned bytes (type `0x08`) are read.

/// Parses an IDX file of unsigned bytes (LeCun's MNIST format: magic `0x00 0x00 0x08 ndim`,
/// big-endian `u32` sizes, then the data): `(shape, data)`.
pub fn idx(bytes: &[u8]) -> Result<(Vec<usize>, &[u8]), String> {
    if bytes.len() < 4 || bytes[0] != 0 || bytes[1] != 0 {
        return Err("not an IDX file".into());
    }
    if bytes[2] != 0x08 {
        return Err(format!("IDX element type 0x{:02x}; only unsigned bytes (0x08) are read", bytes[2]));
    }
    let ndim = usize::from(bytes[3]);
    let header = 4 + 4 * ndim;
    if bytes.len() < header {
        return Err("the IDX header is cut short".into());
    }
    let dims: Vec<usize> =
        (0..ndim).map(|k| u32::from_be_bytes(bytes[4 + 4 * k..8 + 4 * k].try_into().expect("4 bytes")) as usize).collect();
    let len = dims.iter().try_fold(1usize, |a, &b| a.checked_mul(b)).ok_or("IDX sizes overflow")?;
    let data = &bytes[header..];
    if data.len() != len {
        return Err(format!("IDX shape {dims:?} needs {len} bytes of data, the file has {}", data.len()));
    }
    Ok((dims, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idx_parses_and_rejects() {
        let mut b = vec![0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3];
        b.extend([1, 2, 3, 4, 5, 6]);
        let (dims, data) = idx(&b).unwrap();
        assert_eq!(dims, [2, 3]);
        assert_eq!(data, [1, 2, 3, 4, 5, 6]);
        assert!(idx(&b[..10]).is_err());
        assert!(idx(&b[..15]).unwrap_err().contains("needs 6 bytes"));
        b[2] = 0x0D;
        assert!(idx(&b).unwrap_err().contains("0x0d"));
    }
}
