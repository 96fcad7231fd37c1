//! The gdbstub target over a [`Session`]: registers, memory reads, single steps, continue,
//! software breakpoints on slots, and `monitor rsx ...` commands (`disasm`, `insn`, `quad`,
//! `textures`); one connection, served until gdb disconnects or the program ends. Incoming
//! packets pass through [`CheckedStream`] first.

use super::arch::{FragmentRegisters, RsxFragment};
use super::conn::CheckedStream;
use super::session::{Session, SessionError, Stop};
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
use std::net::TcpStream;

/// What the next `wait_for_stop_reason` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Step,
    Continue,
}

/// The gdbstub target.
pub struct Debuggee {
    session: Session,
    mode: Mode,
    /// Extra text for `monitor rsx textures`.
    textures: String,
}

impl Target for Debuggee {
    type Arch = RsxFragment;
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

impl SingleThreadBase for Debuggee {
    fn read_registers(&mut self, regs: &mut FragmentRegisters) -> TargetResult<(), Self> {
        *regs = self.session.registers();
        Ok(())
    }

    fn write_registers(&mut self, regs: &FragmentRegisters) -> TargetResult<(), Self> {
        self.session
            .write_registers(regs)
            .map_err(|e: SessionError| TargetError::Fatal(e.to_string()))
    }

    fn read_addrs(&mut self, start_addr: u32, data: &mut [u8]) -> TargetResult<usize, Self> {
        Ok(self.session.read(start_addr, data))
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

impl SingleThreadResume for Debuggee {
    fn resume(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.mode = Mode::Continue;
        Ok(())
    }

    #[inline(always)]
    fn support_single_step(&mut self) -> Option<SingleThreadSingleStepOps<'_, Self>> {
        Some(self)
    }
}

impl SingleThreadSingleStep for Debuggee {
    fn step(&mut self, _signal: Option<Signal>) -> Result<(), Self::Error> {
        self.mode = Mode::Step;
        Ok(())
    }
}

impl Breakpoints for Debuggee {
    #[inline(always)]
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }
}

impl SwBreakpoint for Debuggee {
    fn add_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        Ok(self.session.add_breakpoint(addr))
    }

    fn remove_sw_breakpoint(&mut self, addr: u32, _kind: usize) -> TargetResult<bool, Self> {
        Ok(self.session.remove_breakpoint(addr))
    }
}

impl MonitorCmd for Debuggee {
    fn handle_monitor_cmd(
        &mut self,
        cmd: &[u8],
        mut out: ConsoleOutput<'_>,
    ) -> Result<(), Self::Error> {
        let cmd = String::from_utf8_lossy(cmd);
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["rsx", "disasm"] => outputln!(out, "{}", self.session.disassembly()),
            ["rsx", "insn"] => outputln!(out, "{}", self.session.instruction()),
            ["rsx", "quad"] => outputln!(out, "{}", self.session.quad_view()),
            ["rsx", "textures"] => outputln!(out, "{}", self.textures),
            _ => outputln!(
                out,
                "monitor commands: rsx disasm | rsx insn | rsx quad | rsx textures"
            ),
        }
        Ok(())
    }
}

/// The blocking event loop: runs the session as gdb asked, one stop at a time.
enum Loop {}

impl BlockingEventLoop for Loop {
    type Target = Debuggee;
    type Connection = CheckedStream;
    type StopReason = SingleThreadStopReason<u32>;

    #[allow(clippy::type_complexity)]
    fn wait_for_stop_reason(
        target: &mut Debuggee,
        _conn: &mut CheckedStream,
    ) -> Result<
        Event<Self::StopReason>,
        WaitForStopReasonError<String, <CheckedStream as Connection>::Error>,
    > {
        let stop = match target.mode {
            Mode::Step => target.session.step(),
            Mode::Continue => target.session.resume(),
        };
        Ok(Event::TargetStopped(match stop {
            Stop::Step => SingleThreadStopReason::DoneStep,
            Stop::Breakpoint => SingleThreadStopReason::SwBreak(()),
            Stop::Exited(code) => SingleThreadStopReason::Exited(code),
        }))
    }

    fn on_interrupt(_target: &mut Debuggee) -> Result<Option<SingleThreadStopReason<u32>>, String> {
        Ok(Some(SingleThreadStopReason::Signal(Signal::SIGINT)))
    }
}

/// Serves `session` to the gdb on `stream` until it disconnects or the program ends.
pub fn serve(
    session: Session,
    stream: TcpStream,
    textures: String,
) -> Result<DisconnectReason, String> {
    let mut target = Debuggee {
        session,
        mode: Mode::Step,
        textures,
    };
    GdbStub::new(CheckedStream::new(stream))
        .run_blocking::<Loop>(&mut target)
        .map_err(|e: GdbStubError<String, std::io::Error>| e.to_string())
}
