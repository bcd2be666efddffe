//! A reader for the data frames in R's `.rda` files (the format `save()` writes), enough for the
//! data of the `mlbench` package: gzip-, bzip2-less, xz- or un-compressed files holding R's XDR
//! serialization, format versions 2 and 3 ("R Internals", sec. 1.8 *Serialization Formats*).
//!
//! Supported objects: pairlists, symbols, character / logical / integer / double vectors, lists,
//! and the attributes on them; this covers data frames whose columns are numbers or factors.
//! Anything else (closures, environments, byte code, ALTREP other than compact sequences) is an
//! error naming the type, never a panic.

use std::io::Read;

/// An R object, as far as a data frame needs.
#[derive(Clone, Debug, PartialEq)]
pub enum RObject {
    /// `NULL`.
    Null,
    /// A symbol (`SYMSXP`).
    Symbol(String),
    /// A character vector; `None` is `NA`.
    Strings(Vec<Option<String>>, Attributes),
    /// An integer or logical vector; `i32::MIN` is `NA`.
    Integers(Vec<i32>, Attributes),
    /// A double vector.
    Doubles(Vec<f64>, Attributes),
    /// A generic vector (`VECSXP`), e.g. a data frame's columns.
    List(Vec<RObject>, Attributes),
    /// A pairlist of `(tag, value)`.
    Pairs(Vec<(Option<String>, RObject)>),
}

/// Attributes of an object: `(name, value)` pairs.
pub type Attributes = Vec<(String, RObject)>;

/// R's integer `NA`.
pub const NA_INTEGER: i32 = i32::MIN;

impl RObject {
    /// The attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&RObject> {
        let attrs = match self {
            RObject::Strings(_, a) | RObject::Integers(_, a) | RObject::Doubles(_, a) | RObject::List(_, a) => a,
            _ => return None,
        };
        attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The strings of a character vector (`NA` as `"NA"`).
    pub fn strings(&self) -> Option<Vec<String>> {
        match self {
            RObject::Strings(v, _) => Some(v.iter().map(|s| s.clone().unwrap_or_else(|| "NA".into())).collect()),
            RObject::Symbol(s) => Some(vec![s.clone()]),
            _ => None,
        }
    }

    /// Whether the object's `class` attribute contains `class`.
    pub fn inherits(&self, class: &str) -> bool {
        self.attr("class").and_then(RObject::strings).is_some_and(|c| c.iter().any(|s| s == class))
    }
}

/// Reads every object an `.rda` file binds: `(name, object)` in file order. `bytes` is the file's
/// content, compressed or not.
pub fn read_rda(bytes: &[u8]) -> Result<Vec<(String, RObject)>, String> {
    let raw = decompress(bytes)?;
    let body = raw
        .strip_prefix(b"RDX2\n")
        .or_else(|| raw.strip_prefix(b"RDX3\n"))
        .ok_or("not an R data file (no RDX2/RDX3 header); a file written by save() is expected")?;
    let body = body.strip_prefix(b"X\n").ok_or("only R's XDR (binary, big-endian) serialization is read; save with ascii = FALSE")?;
    let mut r = Reader { data: body, pos: 0, refs: Vec::new() };
    let version = r.int()?;
    let _writer = r.int()?;
    let _min_reader = r.int()?;
    match version {
        2 => {}
        3 => {
            let n = r.int()?;
            r.bytes(usize::try_from(n).map_err(|_| "bad encoding length")?)?;
        }
        v => return Err(format!("serialization format version {v}; versions 2 and 3 are read")),
    }
    match r.item()? {
        RObject::Pairs(p) => Ok(p.into_iter().map(|(k, v)| (k.unwrap_or_default(), v)).collect()),
        other => Ok(vec![(String::new(), other)]),
    }
}

fn decompress(bytes: &[u8]) -> Result<Vec<u8>, String> {
    if bytes.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0x00]) {
        let mut out = Vec::new();
        lzma_rs::xz_decompress(&mut std::io::BufReader::new(bytes), &mut out).map_err(|e| format!("xz: {e}"))?;
        Ok(out)
    } else if bytes.starts_with(&[0x1F, 0x8B]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
        Ok(out)
    } else if bytes.starts_with(b"BZh") {
        Err("bzip2-compressed; re-save it with compress = \"xz\" or \"gzip\"".into())
    } else {
        Ok(bytes.to_vec())
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// The reference table: symbols (and environments, unsupported) in the order they were read.
    refs: Vec<RObject>,
}

const NILVALUE: u32 = 254;
const REFSXP: u32 = 255;
const ALTREP: u32 = 238;
const EMPTYENV: u32 = 242;
const BASEENV: u32 = 241;
const GLOBALENV: u32 = 253;
const MISSINGARG: u32 = 251;

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len()).ok_or("the file ends inside an object")?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn int(&mut self) -> Result<i32, String> {
        let b = self.bytes(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn length(&mut self) -> Result<usize, String> {
        let n = self.int()?;
        let n = if n == -1 {
            let hi = self.int()? as u32 as u64;
            let lo = self.int()? as u32 as u64;
            (hi << 32) | lo
        } else {
            u64::try_from(n).map_err(|_| format!("negative length {n}"))?
        };
        // Every element takes at least 4 bytes: a longer length is a corrupt file.
        usize::try_from(n).ok().filter(|&n| n <= self.data.len() / 4 + 1).ok_or_else(|| format!("length {n} exceeds the file"))
    }

    fn attributes(&mut self, has: bool) -> Result<Attributes, String> {
        if !has {
            return Ok(Vec::new());
        }
        match self.item()? {
            RObject::Pairs(p) => Ok(p.into_iter().map(|(k, v)| (k.unwrap_or_default(), v)).collect()),
            RObject::Null => Ok(Vec::new()),
            _ => Err("attributes are not a pairlist".into()),
        }
    }

    fn charsxp(&mut self) -> Result<Option<String>, String> {
        let n = self.int()?;
        if n == -1 {
            return Ok(None);
        }
        let n = usize::try_from(n).map_err(|_| format!("string length {n}"))?;
        Ok(Some(String::from_utf8_lossy(self.bytes(n)?).into_owned()))
    }

    fn item(&mut self) -> Result<RObject, String> {
        let flags = self.int()? as u32;
        let ty = flags & 0xFF;
        let has_attr = flags & (1 << 9) != 0;
        let has_tag = flags & (1 << 10) != 0;
        match ty {
            NILVALUE | EMPTYENV | BASEENV | GLOBALENV | MISSINGARG => Ok(RObject::Null),
            REFSXP => {
                let idx = match flags >> 8 {
                    0 => self.int()? as usize,
                    i => i as usize,
                };
                self.refs.get(idx.wrapping_sub(1)).cloned().ok_or_else(|| format!("reference {idx} to an unread object"))
            }
            1 => {
                // SYMSXP: its name is a CHARSXP item.
                let name = match self.item()? {
                    RObject::Strings(mut v, _) if v.len() == 1 => v.pop().flatten().unwrap_or_default(),
                    _ => return Err("a symbol without a name".into()),
                };
                let s = RObject::Symbol(name);
                self.refs.push(s.clone());
                Ok(s)
            }
            2 | 6 | 17 | 239 | 240 => {
                // Pairlists (and language objects, read as pairlists), iteratively along the CDR.
                let mut out = Vec::new();
                let mut flags = flags;
                loop {
                    let has_attr = flags & (1 << 9) != 0;
                    let has_tag = flags & (1 << 10) != 0;
                    self.attributes(has_attr)?;
                    let tag = if has_tag {
                        match self.item()? {
                            RObject::Symbol(s) => Some(s),
                            RObject::Strings(mut v, _) if v.len() == 1 => v.pop().flatten(),
                            _ => None,
                        }
                    } else {
                        None
                    };
                    out.push((tag, self.item()?));
                    let next = self.int()? as u32;
                    if next & 0xFF == NILVALUE {
                        return Ok(RObject::Pairs(out));
                    }
                    if !matches!(next & 0xFF, 2 | 6 | 17 | 239 | 240) {
                        return Err(format!("a pairlist whose tail has type {}", next & 0xFF));
                    }
                    flags = next;
                }
            }
            9 => Ok(RObject::Strings(vec![self.charsxp()?], Vec::new())),
            10 | 13 => {
                let n = self.length()?;
                let b = self.bytes(n.checked_mul(4).ok_or("length overflow")?)?;
                let v = b.chunks_exact(4).map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]])).collect();
                Ok(RObject::Integers(v, self.attributes(has_attr)?))
            }
            14 => {
                let n = self.length()?;
                let b = self.bytes(n.checked_mul(8).ok_or("length overflow")?)?;
                let v = b.chunks_exact(8).map(|c| f64::from_be_bytes(c.try_into().expect("8 bytes"))).collect();
                Ok(RObject::Doubles(v, self.attributes(has_attr)?))
            }
            16 => {
                let n = self.length()?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    let f = self.int()? as u32;
                    if f & 0xFF != 9 {
                        return Err(format!("a character vector element of type {}", f & 0xFF));
                    }
                    v.push(self.charsxp()?);
                }
                Ok(RObject::Strings(v, self.attributes(has_attr)?))
            }
            19 | 20 => {
                let n = self.length()?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.item()?);
                }
                Ok(RObject::List(v, self.attributes(has_attr)?))
            }
            ALTREP => self.altrep(),
            _ => {
                let _ = has_tag;
                Err(format!("R object type {ty} (only data frames of numbers, factors and strings are read)"))
            }
        }
    }

    /// ALTREP compact sequences (`1:n`), which R >= 3.5 may write for row names.
    fn altrep(&mut self) -> Result<RObject, String> {
        let info = self.item()?;
        let state = self.item()?;
        let attrs = self.attributes(true)?;
        let class = match &info {
            RObject::Pairs(p) => p.first().and_then(|(_, v)| v.strings()).and_then(|v| v.into_iter().next()).unwrap_or_default(),
            _ => String::new(),
        };
        match (class.as_str(), state) {
            ("compact_intseq", RObject::Doubles(s, _)) if s.len() == 3 => {
                let (n, start, step) = (s[0] as usize, s[1] as i64, s[2] as i64);
                Ok(RObject::Integers((0..n as i64).map(|i| (start + i * step) as i32).collect(), attrs))
            }
            ("compact_realseq", RObject::Doubles(s, _)) if s.len() == 3 => {
                let (n, start, step) = (s[0] as usize, s[1], s[2]);
                Ok(RObject::Doubles((0..n).map(|i| start + i as f64 * step).collect(), attrs))
            }
            (c, _) => Err(format!("ALTREP class `{c}` is not read")),
        }
    }
}

/// A data frame as numbers: numeric columns as they are, factor columns as their level labels
/// parsed as numbers when every label is numeric (mlbench's 0/1 factors), else as level codes
/// `0, 1, ...`; `NA` becomes NaN.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Column names.
    pub names: Vec<String>,
    /// Columns, each of length `rows`.
    pub columns: Vec<Vec<f64>>,
    /// Per column: the factor levels, empty for numeric columns.
    pub levels: Vec<Vec<String>>,
    /// Number of rows.
    pub rows: usize,
}

/// Reads the data frame bound to `name` in an `.rda` file's content.
pub fn read_frame(bytes: &[u8], name: &str) -> Result<Frame, String> {
    let objects = read_rda(bytes)?;
    let known: Vec<String> = objects.iter().map(|(k, _)| k.clone()).collect();
    let (_, obj) =
        objects.into_iter().find(|(k, _)| k == name).ok_or_else(|| format!("no object `{name}` (it holds {})", known.join(", ")))?;
    if !obj.inherits("data.frame") {
        return Err(format!("`{name}` is not a data frame"));
    }
    let RObject::List(cols, _) = &obj else { return Err(format!("`{name}` is not a list")) };
    let names = obj.attr("names").and_then(RObject::strings).unwrap_or_default();
    if names.len() != cols.len() {
        return Err(format!("`{name}` has {} columns but {} names", cols.len(), names.len()));
    }
    let mut columns = Vec::with_capacity(cols.len());
    let mut levels = Vec::with_capacity(cols.len());
    for (c, col) in names.iter().zip(cols) {
        let (values, lv) = match col {
            RObject::Doubles(v, _) => (v.clone(), Vec::new()),
            RObject::Integers(v, _) if col.inherits("factor") => {
                let lv = col.attr("levels").and_then(RObject::strings).ok_or_else(|| format!("factor `{c}` has no levels"))?;
                let numeric: Option<Vec<f64>> = lv.iter().map(|s| s.trim().parse::<f64>().ok()).collect();
                let values = v
                    .iter()
                    .map(|&code| {
                        if code == NA_INTEGER {
                            return Ok(f64::NAN);
                        }
                        let i =
                            usize::try_from(code - 1).ok().filter(|&i| i < lv.len()).ok_or_else(|| format!("factor `{c}`: code {code}"))?;
                        Ok(numeric.as_ref().map_or(i as f64, |n| n[i]))
                    })
                    .collect::<Result<Vec<f64>, String>>()?;
                (values, lv)
            }
            RObject::Integers(v, _) => (v.iter().map(|&x| if x == NA_INTEGER { f64::NAN } else { x as f64 }).collect(), Vec::new()),
            _ => return Err(format!("column `{c}` is neither numeric nor a factor")),
        };
        columns.push(values);
        levels.push(lv);
    }
    let rows = columns.first().map_or(0, Vec::len);
    if let Some((c, _)) = names.iter().zip(&columns).find(|(_, v)| v.len() != rows) {
        return Err(format!("column `{c}` has a different length"));
    }
    Ok(Frame { names, columns, levels, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// XDR serialization of `list(a = factor(c("x", "y", "x")), b = c(1.5, NA))`-like objects,
    /// written by hand from "R Internals" sec. 1.8.
    fn int(v: i32) -> [u8; 4] {
        v.to_be_bytes()
    }

    fn frame_bytes() -> Vec<u8> {
        let mut b = b"RDX2\nX\n".to_vec();
        for v in [2, 0x040000, 0x020300] {
            b.extend(int(v));
        }
        let sym = |b: &mut Vec<u8>, s: &str| {
            b.extend(int(1));
            b.extend(int(0x40009));
            b.extend(int(s.len() as i32));
            b.extend(s.as_bytes());
        };
        let strsxp = |b: &mut Vec<u8>, v: &[&str]| {
            b.extend(int(16));
            b.extend(int(v.len() as i32));
            for s in v {
                b.extend(int(0x40009));
                b.extend(int(s.len() as i32));
                b.extend(s.as_bytes());
            }
        };
        // Pairlist cell with tag "df".
        b.extend(int(0x402));
        sym(&mut b, "df");
        // VECSXP, object, with attributes: 2 columns.
        b.extend(int(19 | (1 << 8) | (1 << 9)));
        b.extend(int(2));
        // Column 1: factor codes 1, 2, 1 with levels c("0", "1") and class "factor".
        b.extend(int(13 | (1 << 8) | (1 << 9)));
        b.extend(int(3));
        for v in [1, 2, 1] {
            b.extend(int(v));
        }
        b.extend(int(0x402));
        sym(&mut b, "levels");
        strsxp(&mut b, &["0", "1"]);
        b.extend(int(0x402));
        sym(&mut b, "class");
        strsxp(&mut b, &["factor"]);
        b.extend(int(254));
        // Column 2: doubles 1.5, 2.5, 3.5.
        b.extend(int(14));
        b.extend(int(3));
        for v in [1.5f64, 2.5, 3.5] {
            b.extend(v.to_be_bytes());
        }
        // Attributes of the list: names, class (the symbol "class" as a back-reference, index 3).
        b.extend(int(0x402));
        sym(&mut b, "names");
        strsxp(&mut b, &["f", "x"]);
        b.extend(int(0x402));
        b.extend(int(REFSXP as i32 | (3 << 8)));
        strsxp(&mut b, &["data.frame"]);
        b.extend(int(254));
        b.extend(int(254));
        b
    }

    #[test]
    fn reads_a_hand_written_frame() {
        let f = read_frame(&frame_bytes(), "df").unwrap();
        assert_eq!(f.names, ["f", "x"]);
        assert_eq!(f.rows, 3);
        assert_eq!(f.columns[0], [0.0, 1.0, 0.0]);
        assert_eq!(f.levels[0], ["0", "1"]);
        assert_eq!(f.columns[1], [1.5, 2.5, 3.5]);
        assert!(read_frame(&frame_bytes(), "nope").unwrap_err().contains("no object `nope`"));
    }

    #[test]
    fn corrupt_input_is_an_error_not_a_panic() {
        let full = frame_bytes();
        for cut in 0..full.len() {
            let _ = read_frame(&full[..cut], "df");
        }
        assert!(read_rda(b"hello").is_err());
        let mut huge = b"RDX2\nX\n".to_vec();
        for v in [2, 0, 0, 14, i32::MAX] {
            huge.extend(int(v));
        }
        assert!(read_rda(&huge).unwrap_err().contains("exceeds"));
    }
}
