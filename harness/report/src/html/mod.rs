//! The pages: [`index`] (the frame, the capture's facts, every event), [`draw`] (one per draw,
//! in RenderDoc's pipeline order) and [`program`] (one per distinct program: disassembly and
//! WGSL, shown inside the draw pages). Templates are maud's, which escape every spliced value,
//! so text from a capture (its file name, problems, warnings) cannot become markup; the only
//! unescaped text is the fixed CSS and JavaScript of [`assets`]. Pages load nothing from the
//! network: a Content-Security-Policy allows files of the site only.

pub mod assets;
pub mod draw;
pub mod index;
pub mod program;
pub mod state_table;

use crate::images::{ImageFile, ImageId, Images};
use crate::site::{Site, SiteError, SitePath, GENERATOR};
use crate::Report;
use indicatif::ProgressBar;
use maud::{html, Markup, DOCTYPE};
use rayon::prelude::*;

/// What [`write_site`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    /// Pages.
    pub pages: usize,
    /// Events on the index.
    pub events: usize,
}

/// Write every page and asset of `report` into `site`.
pub fn write_site(
    report: &Report<'_>,
    site: &Site,
    progress: Option<&ProgressBar>,
) -> Result<Written, SiteError> {
    for (name, contents) in assets::FILES {
        site.write(&SitePath::asset(name), contents.as_bytes())?;
    }
    let programs: Vec<_> = report.programs.iter().collect();
    programs.par_iter().try_for_each(|(key, text)| {
        let path = SitePath::program(&key.0);
        site.write(
            &path,
            program::page(key, text, &path).into_string().as_bytes(),
        )
    })?;
    if let Some(bar) = progress {
        bar.set_length(report.range.len() as u64);
    }
    report.range.clone().into_par_iter().try_for_each(|d| {
        let path = SitePath::draw(d);
        let page = draw::page(report, d, &path);
        site.write(&path, page.into_string().as_bytes())?;
        if let Some(bar) = progress {
            bar.inc(1);
        }
        Ok::<(), SiteError>(())
    })?;
    let (index, events) = index::page(report);
    site.write(&SitePath::index(), index.into_string().as_bytes())?;
    Ok(Written {
        pages: programs.len() + report.range.len() + 1,
        events,
    })
}

/// The Content-Security-Policy of every page: files of the site only, no inline script.
const CSP: &str = "default-src 'none'; img-src 'self' file:; style-src 'self' file:; \
                   script-src 'self' file:; frame-src 'self' file:";

/// A whole page at `path` with `title` and `body`.
pub fn layout(path: &SitePath, title: &str, body_class: &str, body: Markup) -> Markup {
    let css = SitePath::asset("report.css").href_from(path);
    let js = SitePath::asset("report.js").href_from(path);
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="generator" content=(GENERATOR);
                meta http-equiv="Content-Security-Policy" content=(CSP);
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href=(css);
            }
            body class=(body_class) {
                (body)
                script src=(js) {}
            }
        }
    }
}

/// An image of the site linking to its file, or a note of why it is missing.
pub fn image(images: &Images, id: ImageId, from: &SitePath, alt: &str, class: &str) -> Markup {
    match images.get(id) {
        Ok(file) => {
            let href = image_href(file, from);
            html! {
                a href=(href) {
                    img class=(class) src=(href) width=(file.width) height=(file.height)
                        alt=(alt) loading="lazy";
                }
            }
        }
        Err(why) => html! { span.missing { "(no image: " (why) ")" } },
    }
}

/// The link to an image file from the page at `from`.
pub fn image_href(file: &ImageFile, from: &SitePath) -> String {
    SitePath::image(&file.name).href_from(from)
}

/// A float as the tables show it: the shortest text that reads back to the same f32.
pub fn float(v: f32) -> String {
    format!("{v}")
}

/// Four floats.
pub fn vec4(v: [f32; 4]) -> String {
    format!(
        "{}, {}, {}, {}",
        float(v[0]),
        float(v[1]),
        float(v[2]),
        float(v[3])
    )
}
