//! The connection gdbstub reads from: a TCP stream whose incoming packets are checked before
//! gdbstub sees them. A packet with a bad or missing checksum, or longer than
//! [`MAX_PACKET`], gets the protocol's negative acknowledgement (`-`, "send it again") and is
//! dropped, so malformed input never ends the session (gdbstub treats a parse error as fatal).

use gdbstub::conn::{Connection, ConnectionExt};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpStream;

/// Longest packet accepted (gdb's own packets are a few KiB).
pub const MAX_PACKET: usize = 1 << 16;

/// A TCP stream with checked packets.
pub struct CheckedStream {
    stream: TcpStream,
    /// Bytes checked and not yet read by gdbstub.
    queue: VecDeque<u8>,
}

impl CheckedStream {
    /// Wraps `stream`.
    pub fn new(stream: TcpStream) -> CheckedStream {
        CheckedStream {
            stream,
            queue: VecDeque::new(),
        }
    }

    fn byte(&mut self) -> std::io::Result<u8> {
        let mut b = [0u8];
        Read::read_exact(&mut self.stream, &mut b)?;
        Ok(b[0])
    }

    /// Reads from the socket until something valid is queued.
    fn fill(&mut self) -> std::io::Result<()> {
        loop {
            let first = self.byte()?;
            if first != b'$' {
                // Acknowledgements and the interrupt byte pass as they are.
                self.queue.push_back(first);
                return Ok(());
            }
            let mut body = Vec::new();
            let mut too_long = false;
            loop {
                let b = self.byte()?;
                if b == b'#' {
                    break;
                }
                if body.len() < MAX_PACKET {
                    body.push(b);
                } else {
                    too_long = true;
                }
            }
            let sum = [self.byte()?, self.byte()?];
            let given = std::str::from_utf8(&sum)
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok());
            let computed = body.iter().fold(0u8, |a, b| a.wrapping_add(*b));
            if !too_long && given == Some(computed) {
                self.queue.push_back(b'$');
                self.queue.extend(body);
                self.queue.push_back(b'#');
                self.queue.extend(sum);
                return Ok(());
            }
            Write::write_all(&mut self.stream, b"-")?;
            Write::flush(&mut self.stream)?;
        }
    }
}

impl Connection for CheckedStream {
    type Error = std::io::Error;

    fn write(&mut self, byte: u8) -> Result<(), Self::Error> {
        Write::write_all(&mut self.stream, &[byte])
    }

    fn write_all(&mut self, buf: &[u8]) -> Result<(), Self::Error> {
        Write::write_all(&mut self.stream, buf)
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        Write::flush(&mut self.stream)
    }

    fn on_session_start(&mut self) -> Result<(), Self::Error> {
        self.stream.set_nodelay(true)
    }
}

impl ConnectionExt for CheckedStream {
    fn read(&mut self) -> Result<u8, Self::Error> {
        while self.queue.is_empty() {
            self.fill()?;
        }
        Ok(self.queue.pop_front().unwrap_or(b'+'))
    }

    fn peek(&mut self) -> Result<Option<u8>, Self::Error> {
        // The target never runs in the background (it stops after each request), so only
        // what is already checked can be peeked.
        Ok(self.queue.front().copied())
    }
}
