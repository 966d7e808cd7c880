//! Reading stdin lines with a size limit. `BufRead::read_until` keeps a whole line in
//! memory, so one 500 MB line would cost 500 MB before it could be refused; this reads
//! with `fill_buf`/`consume` and stops keeping bytes once a line is over the limit,
//! discarding the rest of it as it arrives. Hand-written: no crate bounds a line read.

use std::io::{self, BufRead};

/// One line of input, without its line ending.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// A line over the limit, dropped; `bytes` is its full length.
    TooLong {
        bytes: u64,
    },
}

/// Reads the next line; `None` at end of input. At most `max` bytes of a line are
/// kept (plus one read buffer), however long it is. A final line without a newline
/// counts as a line.
pub fn read_line(reader: &mut impl BufRead, max: u64) -> io::Result<Option<Line>> {
    let mut kept: Vec<u8> = Vec::new();
    let mut total: u64 = 0;
    let mut over = false;
    let mut seen_any = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            if !seen_any {
                return Ok(None);
            }
            break;
        }
        seen_any = true;
        let (take, found_newline) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        let content = if found_newline {
            &chunk[..take - 1]
        } else {
            &chunk[..take]
        };
        total += content.len() as u64;
        if !over {
            if total > max {
                over = true;
                // Give the memory back now: the rest of this line is only counted.
                kept = Vec::new();
            } else {
                kept.extend_from_slice(content);
            }
        }
        reader.consume(take);
        if found_newline {
            break;
        }
    }
    if over {
        return Ok(Some(Line::TooLong { bytes: total }));
    }
    if kept.last() == Some(&b'\r') {
        kept.pop();
    }
    let text = match String::from_utf8(kept) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Ok(Some(Line::Text(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: u64, buffer: usize) -> Vec<Line> {
        let mut reader = io::BufReader::with_capacity(buffer, input);
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut reader, max).unwrap() {
            out.push(line);
        }
        out
    }

    fn text(s: &str) -> Line {
        Line::Text(s.to_string())
    }

    #[test]
    fn lines_split_at_newlines_and_lose_their_endings() {
        for buffer in [1, 3, 8192] {
            assert_eq!(
                lines(b"a\r\nbc\n\nlast", 100, buffer),
                vec![text("a"), text("bc"), text(""), text("last")]
            );
        }
        assert_eq!(lines(b"", 100, 8), vec![]);
    }

    #[test]
    fn a_line_over_the_limit_is_dropped_and_the_next_one_read() {
        for buffer in [1, 4, 8192] {
            let input = b"12345\n123456\nok\n1234567";
            assert_eq!(
                lines(input, 5, buffer),
                vec![
                    text("12345"),
                    Line::TooLong { bytes: 6 },
                    text("ok"),
                    Line::TooLong { bytes: 7 },
                ],
                "buffer {buffer}"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        assert_eq!(lines(b"a\xffb\n", 100, 8), vec![text("a\u{fffd}b")]);
    }
}
