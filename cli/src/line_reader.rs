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

/// Reads lines with a size limit. The line being read is kept here, not on the stack, so
/// a read that stops with `WouldBlock` (stdin in non-blocking mode) is resumed by the
/// next call without losing what was read of the line.
#[derive(Debug)]
pub struct LineReader {
    max: u64,
    kept: Vec<u8>,
    total: u64,
    over: bool,
    seen_any: bool,
}

impl LineReader {
    pub fn new(max: u64) -> LineReader {
        LineReader {
            max,
            kept: Vec::new(),
            total: 0,
            over: false,
            seen_any: false,
        }
    }

    /// The next line; `None` at end of input. At most `max` bytes of a line are kept
    /// (plus one read buffer), however long it is. A final line without a newline counts
    /// as a line. An error (`WouldBlock` included) leaves the partial line in place.
    pub fn read_line(&mut self, reader: &mut impl BufRead) -> io::Result<Option<Line>> {
        loop {
            let chunk = match reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                return Ok(self.finish());
            }
            let (used, line) = self.feed(chunk);
            reader.consume(used);
            if line.is_some() {
                return Ok(line);
            }
        }
    }

    /// Takes bytes of input up to and including the next newline: how many it took, and
    /// the line when they ended one.
    pub fn feed(&mut self, chunk: &[u8]) -> (usize, Option<Line>) {
        if chunk.is_empty() {
            return (0, None);
        }
        self.seen_any = true;
        let (take, found_newline) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        let content = if found_newline {
            &chunk[..take - 1]
        } else {
            &chunk[..take]
        };
        self.total += content.len() as u64;
        if !self.over {
            if self.total > self.max {
                self.over = true;
                // Give the memory back now: the rest of this line is only counted.
                self.kept = Vec::new();
            } else {
                self.kept.extend_from_slice(content);
            }
        }
        (take, found_newline.then(|| self.take_line()))
    }

    /// At end of input: the last line when it had no newline.
    pub fn finish(&mut self) -> Option<Line> {
        self.seen_any.then(|| self.take_line())
    }

    fn take_line(&mut self) -> Line {
        let total = std::mem::take(&mut self.total);
        let over = std::mem::take(&mut self.over);
        self.seen_any = false;
        let mut kept = std::mem::take(&mut self.kept);
        if over {
            return Line::TooLong { bytes: total };
        }
        if kept.last() == Some(&b'\r') {
            kept.pop();
        }
        match String::from_utf8(kept) {
            Ok(text) => Line::Text(text),
            Err(e) => Line::Text(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: u64, buffer: usize) -> Vec<Line> {
        let mut reader = io::BufReader::with_capacity(buffer, input);
        let mut lines = LineReader::new(max);
        let mut out = Vec::new();
        while let Some(line) = lines.read_line(&mut reader).unwrap() {
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

    /// Gives its bytes in the pieces it was made with, and `WouldBlock` between them, as
    /// a non-blocking pipe does when the writer is slower than the reader.
    struct Trickle {
        pieces: std::collections::VecDeque<&'static [u8]>,
        dry: bool,
    }

    impl io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.dry = !self.dry;
            if self.dry {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            match self.pieces.pop_front() {
                None => Ok(0),
                Some(piece) => {
                    buf[..piece.len()].copy_from_slice(piece);
                    Ok(piece.len())
                }
            }
        }
    }

    #[test]
    fn a_read_that_would_block_mid_line_loses_nothing() {
        let pieces = [&b"hel"[..], b"lo\nwor", b"ld\r", b"\n12345", b"6789\nend"];
        let mut reader = io::BufReader::with_capacity(
            64,
            Trickle {
                pieces: pieces.into_iter().collect(),
                dry: false,
            },
        );
        // 6: the carriage return counts until it is taken off the whole line.
        let mut lines = LineReader::new(6);
        let (mut out, mut blocked) = (Vec::new(), 0);
        loop {
            match lines.read_line(&mut reader) {
                Ok(Some(line)) => out.push(line),
                Ok(None) => break,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => blocked += 1,
                Err(e) => panic!("{e}"),
            }
        }
        assert!(blocked >= pieces.len(), "the reader never had to wait");
        assert_eq!(
            out,
            vec![
                text("hello"),
                text("world"),
                Line::TooLong { bytes: 9 },
                text("end")
            ]
        );
    }
}
