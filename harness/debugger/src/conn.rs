//! The connection gdbstub reads from: a TCP stream whose incoming packets are checked before
//! gdbstub sees them. A packet with a bad or missing checksum, or longer than
//! [`MAX_PACKET`], gets the protocol's negative acknowledgement (`-`, "send it again") and is
//! dropped; a byte outside a packet other than an acknowledgement (`+`) or the interrupt
//! (0x03) is dropped (gdb skips junk the same way), so malformed input never ends the session
//! (gdbstub treats a parse error, and a `-` it cannot answer, as fatal). A packet that passes
//! the checks and that gdbstub still cannot take is answered by the server
//! ([`SharedStream::reply_error`]).

use gdbstub::conn::{Connection, ConnectionExt};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::rc::Rc;

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
                // Acknowledgements and the interrupt byte pass as they are; anything else
                // (a `-` gdbstub would have to answer by resending, stray bytes) is dropped.
                if first == b'+' || first == 0x03 {
                    self.queue.push_back(first);
                    return Ok(());
                }
                continue;
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

/// A [`CheckedStream`] shared between the gdbstub sessions of one connection: the server
/// starts a new one on the same stream after a packet gdbstub refused.
#[derive(Clone)]
pub struct SharedStream(Rc<RefCell<CheckedStream>>);

impl SharedStream {
    /// Wraps `stream`.
    pub fn new(stream: TcpStream) -> SharedStream {
        SharedStream(Rc::new(RefCell::new(CheckedStream::new(stream))))
    }

    /// Acknowledges the packet gdbstub refused and answers it with error 01 (`$E01#a6`), as a
    /// stub answers a request it cannot parse. (In no-acknowledgement mode gdb skips the `+`
    /// as junk.)
    pub fn reply_error(&self) -> std::io::Result<()> {
        let mut s = self.0.borrow_mut();
        Write::write_all(&mut s.stream, b"+$E01#a6")?;
        Write::flush(&mut s.stream)
    }
}

impl Connection for SharedStream {
    type Error = std::io::Error;

    fn write(&mut self, byte: u8) -> Result<(), Self::Error> {
        self.0.borrow_mut().write(byte)
    }

    fn write_all(&mut self, buf: &[u8]) -> Result<(), Self::Error> {
        Connection::write_all(&mut *self.0.borrow_mut(), buf)
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        Connection::flush(&mut *self.0.borrow_mut())
    }

    fn on_session_start(&mut self) -> Result<(), Self::Error> {
        self.0.borrow_mut().on_session_start()
    }
}

impl ConnectionExt for SharedStream {
    fn read(&mut self) -> Result<u8, Self::Error> {
        self.0.borrow_mut().read()
    }

    fn peek(&mut self) -> Result<Option<u8>, Self::Error> {
        self.0.borrow_mut().peek()
    }
}
