//! `perfbench flame FOLDED [-o SVG]`: the flame graph of folded stacks, such as the
//! `stacks.folded` a profiled benchmark writes (the benchmark binary has no renderer: it runs
//! this command, or prints it). Drawn by `perfbench_analysis::report::flame::folded_svg`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::{lexopt_error, unexpected, usage, Cmd, Usage};

/// `perfbench flame --help`.
pub(crate) const HELP: &str = "\
Draw the flame graph of folded stacks (a profiled benchmark's stacks.folded)

Usage: perfbench flame [OPTIONS] <FOLDED>

Arguments:
  <FOLDED>  Folded stacks: `frame;frame;frame COUNT` lines
            (target/perfbench/profile/ID/stacks.folded, which --profile writes)

Options:
  -o, --output <SVG>         Write the SVG picture to SVG [default: standard output]
      --title <TEXT>         The title [default: the FOLDED file's path]
      --subtitle <TEXT>      A line under the title (what the widths are)
      --count-name <NAME>    What a count is, in the tooltips [default: samples]
  -h, --help                 Print help

Exit status: 0, 2 an error (an unreadable file, a line that is not `STACK COUNT`, an SVG that
cannot be written).
";

/// What `perfbench flame` was asked.
pub(crate) struct Args {
    /// The folded stacks.
    pub(crate) folded: PathBuf,
    /// Where the SVG goes: standard output when `None`.
    pub(crate) output: Option<PathBuf>,
    /// `--title`, `--subtitle`, `--count-name`.
    pub(crate) title: Option<String>,
    pub(crate) subtitle: Option<String>,
    pub(crate) count_name: Option<String>,
}

/// `flame [OPTIONS] FOLDED`.
pub(crate) fn parse(p: &mut lexopt::Parser) -> Result<Cmd, Usage> {
    use lexopt::prelude::*;
    let mut folded = None;
    let (mut output, mut title, mut subtitle, mut count_name) = (None, None, None, None);
    let once = |given: bool, flag: &str| {
        if given {
            Err(usage(format!("`{flag}` was given more than once"), HELP))
        } else {
            Ok(())
        }
    };
    while let Some(arg) = p.next().map_err(lexopt_error)? {
        match arg {
            Short('h') | Long("help") => return Ok(Cmd::Print(HELP)),
            Short('o') | Long("output") => {
                once(output.is_some(), "--output")?;
                output = Some(PathBuf::from(p.value().map_err(lexopt_error)?));
            }
            Long("title") => {
                once(title.is_some(), "--title")?;
                title = Some(p.value().and_then(|v| v.string()).map_err(lexopt_error)?);
            }
            Long("subtitle") => {
                once(subtitle.is_some(), "--subtitle")?;
                subtitle = Some(p.value().and_then(|v| v.string()).map_err(lexopt_error)?);
            }
            Long("count-name") => {
                once(count_name.is_some(), "--count-name")?;
                count_name = Some(p.value().and_then(|v| v.string()).map_err(lexopt_error)?);
            }
            Value(v) if folded.is_none() => folded = Some(PathBuf::from(v)),
            arg => return Err(unexpected(arg, HELP)),
        }
    }
    let folded =
        folded.ok_or_else(|| usage("the FOLDED stacks file is required".to_owned(), HELP))?;
    Ok(Cmd::Flame(Args {
        folded,
        output,
        title,
        subtitle,
        count_name,
    }))
}

/// `perfbench flame`: the SVG of a folded-stacks file, to `output` or standard output.
pub(crate) fn run(args: &Args) -> ExitCode {
    let folded = args.folded.as_path();
    use perfbench_analysis::report::flame::{folded_svg, FoldedTitle};
    let text = match std::fs::read_to_string(folded) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", folded.display());
            return ExitCode::from(2);
        }
    };
    let path = folded.display().to_string();
    let title = FoldedTitle {
        title: args.title.as_deref().unwrap_or(&path),
        subtitle: args.subtitle.as_deref(),
        count_name: args.count_name.as_deref().unwrap_or("samples"),
    };
    let svg = match folded_svg(&text, &title) {
        Ok(svg) => svg,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let written = match &args.output {
        Some(to) => std::fs::write(to, svg).map_err(|e| (to.display().to_string(), e)),
        None => {
            use std::io::Write as _;
            std::io::stdout()
                .lock()
                .write_all(svg.as_bytes())
                .map_err(|e| ("standard output".to_owned(), e))
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err((to, e)) => {
            eprintln!("error: cannot write the flame graph to {to}: {e}");
            ExitCode::from(2)
        }
    }
}
