//! The gdbstub target over any [`Invocation`]: registers, memory reads, single steps,
//! continue, software breakpoints on slots, and `monitor rsx ...` commands; one connection,
//! served until gdb disconnects or the program ends. Incoming packets pass through
//! [`super::conn::CheckedStream`] first; a packet gdbstub still refuses (a malformed `G` or
//! `qRcmd`, a memory read too large for its buffer, an unknown `qXfer` annex) is answered
//! with an error and the session goes on with a new gdbstub on the same connection.

use super::conn::SharedStream;
use super::cursor::Stop;
use super::invocation::Invocation;
use gdbstub::arch::Arch;
use gdbstub::common::Signal;
use gdbstub::conn::Connection;
use gdbstub::stub::run_blocking::{BlockingEventLoop, Event, WaitForStopReasonError};
use gdbstub::stub::{DisconnectReason, GdbStub, GdbStubError, SingleThreadStopReason};
use gdbstub::target::ext::base::singlethread::{
    SingleThreadBase, SingleThreadResume, SingleThreadResumeOps, SingleThreadSingleStep,
    SingleThreadSingleStepOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, SwBreakpoint, SwBreakpointOps,
};
use gdbstub::target::ext::monitor_cmd::{outputln, ConsoleOutput, MonitorCmd, MonitorCmdOps};
use gdbstub::target::{Target, TargetError, TargetResult};
use std::marker::PhantomData;
use std::net::TcpStream;

/// What the next `wait_for_stop_reason` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Step,
    Continue,
}

/// The gdbstub target.
pub struct Debuggee<I: Invocation> {
    invocation: I,
    mode: Mode,
}

type Regs<I> = <<I as Invocation>::Arch as Arch>::Registers;

impl<I: Invocation> Target for Debuggee<I> {
    type Arch = I::Arch;
    type Error = String;

    #[inline(always)]
    fn base_ops(&mut self) -> BaseOps<'_, Self::Arch, Self::Error> {
        BaseOps::SingleThread(self)
    }

    #[inline(always)]
    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    #[inline(always)]
    fn support_monitor_cmd(&mut self) -> Option<MonitorCmdOps<'_, Self>> {
        Some(self)
    }
}

impl<I: Invocation> SingleThreadBase for Debuggee<I> {
    fn read_registers(&mut self, regs: &mut Regs<I>) -> TargetResult<(), Self> {
        *regs = self.invocation.registers();
        Ok(())
    }

    fn write_registers(&mut self, regs: &Regs<I>) -> TargetResult<(), Self> {
        self.invocation
            .write_registers(regs)
            .map_err(TargetError::Fatal)
    }

    fn read_addrs(&mut self, start_addr: u32, data: &mut [u8]) -> TargetResult<usize, Self> {
        Ok(self.invocation.read(start_addr, data))
    }

    fn write_addrs(&mut self, _start_addr: u32, _data: &[u8]) -> TargetResult<(), Self> {
        // Memory is the capture's or the program's: read only.
        Err(TargetError::NonFatal)
    }

    #[inline(always)]
    fn support_resume(&mut self) -> Option<SingleThreadResumeOps<'_, Self>> {
        Some(self)
    }
}

impl<I: Invocation> SingleThreadResume for Debuggee<I> {
    fn resume(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.mode = Mode::Continue;
        Ok(())
    }

    #[inline(always)]
    fn support_single_step(&mut self) -> Option<SingleThreadSingleStepOps<'_, Self>> {
        Some(self)
    }
}

impl<I: Invocation> SingleThreadSingleStep for Debuggee<I> {
    fn step(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.mode = Mode::Step;
        Ok(())
    }
}

impl<I: Invocation> Breakpoints for Debuggee<I> {
    #[inline(always)]
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }
}

impl<I: Invocation> SwBreakpoint for Debuggee<I> {
    fn add_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        Ok(self.invocation.add_breakpoint(addr))
    }

    fn remove_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        Ok(self.invocation.remove_breakpoint(addr))
    }
}

impl<I: Invocation> MonitorCmd for Debuggee<I> {
    fn handle_monitor_cmd(
        &mut self,
        cmd: &[u8],
        mut out: ConsoleOutput<'_>,
    ) -> Result<(), Self::Error> {
        let cmd = String::from_utf8_lossy(cmd);
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let answer = match words.split_first() {
            Some((&"rsx", rest)) => self.invocation.monitor(rest),
            _ => self.invocation.monitor(&[]),
        };
        outputln!(out, "{answer}");
        Ok(())
    }
}

/// The blocking event loop: runs the invocation as gdb asked, one stop at a time.
struct Loop<I>(PhantomData<I>);

impl<I: Invocation> BlockingEventLoop for Loop<I> {
    type Target = Debuggee<I>;
    type Connection = SharedStream;
    type StopReason = SingleThreadStopReason<u32>;

    #[allow(clippy::type_complexity)]
    fn wait_for_stop_reason(
        target: &mut Debuggee<I>,
        _conn: &mut SharedStream,
    ) -> Result<
        Event<Self::StopReason>,
        WaitForStopReasonError<String, <SharedStream as Connection>::Error>,
    > {
        let stop = match target.mode {
            Mode::Step => target.invocation.step(),
            Mode::Continue => target.invocation.resume(),
        };
        Ok(Event::TargetStopped(match stop {
            Stop::Step => SingleThreadStopReason::DoneStep,
            Stop::Breakpoint => SingleThreadStopReason::SwBreak(()),
            Stop::Exited(code) => SingleThreadStopReason::Exited(code),
        }))
    }

    fn on_interrupt(
        _target: &mut Debuggee<I>,
    ) -> Result<Option<SingleThreadStopReason<u32>>, String> {
        Ok(Some(SingleThreadStopReason::Signal(Signal::SIGINT)))
    }
}

/// Serves `invocation` to the gdb on `stream` until it disconnects or the program ends. A
/// connection that breaks (gdb killed, the socket closed without a detach) ends the session
/// as a disconnect does.
pub fn serve<I: Invocation>(invocation: I, stream: TcpStream) -> Result<DisconnectReason, String> {
    let mut target = Debuggee {
        invocation,
        mode: Mode::Step,
    };
    let stream = SharedStream::new(stream);
    let mut refused = 0usize;
    loop {
        let e = match GdbStub::new(stream.clone()).run_blocking::<Loop<I>>(&mut target) {
            Ok(reason) => return Ok(reason),
            Err(e) => e as GdbStubError<String, std::io::Error>,
        };
        if e.is_connection_error() {
            return Ok(DisconnectReason::Disconnect);
        }
        if e.is_target_error() || refused >= MAX_REFUSED_PACKETS {
            return Err(e.to_string());
        }
        // A packet gdbstub could not take (it sent no reply): answered with an error; the
        // target keeps its state for the next gdbstub.
        refused += 1;
        // gdbstub's own text, up to its first sentence's end (its unexpected-packet message
        // goes on to ask for a bug report to gdbstub).
        let text = e.to_string();
        let first = text.split(". ").next().unwrap_or(&text);
        eprintln!("rsxtrace debug: packet refused ({first}); answered E01");
        if stream.reply_error().is_err() {
            return Ok(DisconnectReason::Disconnect);
        }
    }
}

/// Packets refused in one session before it ends (a client that sends nothing else).
const MAX_REFUSED_PACKETS: usize = 10_000;
