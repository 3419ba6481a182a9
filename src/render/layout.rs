//! Aligned columns for text output. The last column (the message) is cut to
//! the terminal width when there is one, down to nothing, so that a row
//! never wraps; off a terminal (and with `-o wide`) nothing is cut.

use unicode_width::UnicodeWidthStr;

/// A cell: its plain text (already escaped) and how to paint it.
pub struct Cell {
    pub text: String,
    pub paint: Box<dyn Fn(&str) -> String>,
}

impl Cell {
    pub fn plain(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            paint: Box::new(str::to_string),
        }
    }
    pub fn painted(text: impl Into<String>, paint: impl Fn(&str) -> String + 'static) -> Cell {
        Cell {
            text: text.into(),
            paint: Box::new(paint),
        }
    }
}

const GAP: usize = 2;

/// Lays out rows under a header. Padding is computed on plain text, so
/// colour never shifts the columns.
pub fn table(header: &[&str], rows: Vec<Vec<Cell>>, width: Option<usize>) -> String {
    let last = header.len() - 1;
    table_shrinking(header, rows, width, last)
}

/// [`table`], with column `shrink` (MESSAGE) the one that gives way to
/// the width, whichever its place: columns after it (LABELS) keep theirs.
pub fn table_shrinking(
    header: &[&str],
    rows: Vec<Vec<Cell>>,
    width: Option<usize>,
    shrink: usize,
) -> String {
    let (mut out, cut) = lay_out(header, rows, width, shrink);
    let names: Vec<&str> = cut.iter().map(|&i| header[i]).collect();
    if let (Some(w), false) = (width, names.is_empty()) {
        let them = if names.len() == 1 { "it" } else { "them" };
        let note = format!(
            "({} cut to fit the terminal; -o wide shows {them} whole)",
            names.join(", ")
        );
        out.push_str(&wrap(&note, Some(w), "", " "));
    }
    out
}

/// The table's lines, one per row after the header, and the columns a
/// cell of which was cut to fit the width.
pub fn lay_out(
    header: &[&str],
    rows: Vec<Vec<Cell>>,
    width: Option<usize>,
    shrink: usize,
) -> (String, Vec<usize>) {
    let cols = header.len();
    let last = cols - 1;
    let mut widths: Vec<usize> = header.iter().map(|h| h.width()).collect();
    for row in &rows {
        for (i, cell) in row.iter().enumerate().take(cols) {
            widths[i] = widths[i].max(cell.text.width());
        }
    }
    // The line's width without the shrinking column: every other column,
    // and a gap after each but the last.
    let others: usize = (0..cols)
        .filter(|&i| i != shrink)
        .map(|i| widths[i] + if i == last { 0 } else { GAP })
        .sum::<usize>()
        + if shrink == last { 0 } else { GAP };
    let room = width.map(|w| w.saturating_sub(others));
    if let Some(room) = room {
        widths[shrink] = widths[shrink].min(room);
    }
    // Where each column begins, to name those a cut at the edge reached.
    let starts: Vec<usize> = widths
        .iter()
        .scan(0, |at, w| {
            let start = *at;
            *at += w + GAP;
            Some(start)
        })
        .collect();
    let mut cut = vec![false; cols];
    let mut out = String::new();
    let header_cells: Vec<Cell> = header.iter().map(|h| Cell::plain(*h)).collect();
    for row in std::iter::once(header_cells).chain(rows) {
        let mut line = String::new();
        let mut plain = String::new();
        for (i, cell) in row.iter().enumerate() {
            let text = match room {
                Some(_) if i == shrink => truncate(&cell.text, widths[i]),
                _ => cell.text.clone(),
            };
            cut[i] |= text != cell.text;
            line.push_str(&(cell.paint)(&text));
            plain.push_str(&text);
            if i != last {
                let pad = " ".repeat(widths[i].saturating_sub(text.width()) + GAP);
                line.push_str(&pad);
                plain.push_str(&pad);
            }
        }
        // With MESSAGE gone, columns wider than the terminal (a long name,
        // LABELS) are cut at its edge, uncoloured, rather than wrapped.
        match width {
            Some(w) if plain.trim_end().width() > w => {
                for (i, cell) in row.iter().enumerate() {
                    cut[i] |= !cell.text.is_empty() && starts[i] + cell.text.width() > w;
                }
                out.push_str(&truncate(plain.trim_end(), w));
            }
            _ => out.push_str(line.trim_end()),
        }
        out.push('\n');
    }
    (out, (0..cols).filter(|&i| cut[i]).collect())
}

/// Wraps prose at a display width, word by word: the first line after
/// `first`, the others after `rest` (a hanging indent). A word longer than
/// the width (a URL, an image name) is kept whole. Without a width, one
/// line.
pub fn wrap(text: &str, width: Option<usize>, first: &str, rest: &str) -> String {
    let Some(width) = width else {
        return format!("{first}{text}\n");
    };
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !empty && line.width() + 1 + word.width() > width {
            out.push_str(&line);
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// Cuts text to a display width, marking the cut with `…`.
pub fn truncate(text: &str, room: usize) -> String {
    if text.width() <= room {
        return text.to_string();
    }
    if room == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    let mut rest = text;
    while !rest.is_empty() {
        // An escape the text was given (`\u{feff}`, `\x1b`) is cut whole
        // or not at all: half of one reads as something else.
        let unit = &rest[..unit_len(rest)];
        let w = unit.width();
        if used + w + 1 > room {
            break;
        }
        out.push_str(unit);
        used += w;
        rest = &rest[unit.len()..];
    }
    out.push('…');
    out
}

/// The length in bytes of the first unit of `text`: an escape as
/// [`crate::escape`] writes it (`\x1b`, `\u{202e}`, `\n`), else one
/// character.
fn unit_len(text: &str) -> usize {
    let b = text.as_bytes();
    let hex = |from: usize, n: usize| {
        b.len() >= from + n && b[from..from + n].iter().all(u8::is_ascii_hexdigit)
    };
    match b {
        [b'\\', b'x', ..] if hex(2, 2) => 4,
        [b'\\', b'u', b'{', ..] => match text[3..].find('}') {
            Some(end) if end <= 6 && hex(3, end) => 3 + end + 1,
            _ => 1,
        },
        [b'\\', b'n' | b't' | b'r', ..] => 2,
        _ => text.chars().next().map_or(0, char::len_utf8),
    }
}

/// The table, less its first line under `--no-headers`.
pub fn without_header(table: String, no_headers: bool) -> String {
    if !no_headers {
        return table;
    }
    match table.split_once('\n') {
        Some((_, rest)) => rest.to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod cut_tests {
    use super::{Cell, table_shrinking, truncate};

    fn rows(texts: &[[&str; 3]]) -> Vec<Vec<Cell>> {
        texts
            .iter()
            .map(|r| r.iter().map(|t| Cell::plain(*t)).collect())
            .collect()
    }

    #[test]
    fn a_cut_column_is_named_once_below_the_table() {
        let header = ["NAME", "AGE", "MESSAGE"];
        let table = table_shrinking(
            &header,
            rows(&[[
                "Deployment/web",
                "5m",
                "rollout made no progress for 10m: 0/3 ready",
            ]]),
            Some(40),
            2,
        );
        assert!(table.contains('…'), "{table}");
        assert!(
            table.ends_with("(MESSAGE cut to fit the terminal; -o\n wide shows it whole)\n"),
            "{table}"
        );
        // A name past the edge takes AGE with it, and both are named.
        let deep = format!("└─{}", "Pod/web-57497db5f5-".repeat(3));
        let table = table_shrinking(&header, rows(&[[deep.as_str(), "5m", ""]]), Some(40), 2);
        assert!(
            table.contains("(NAME, AGE, MESSAGE cut to fit the"),
            "{table}"
        );
        // Nothing cut, nothing said; off a terminal, never.
        let short = rows(&[["Deployment/web", "5m", "ok"]]);
        assert!(!table_shrinking(&header, short, Some(40), 2).contains("cut to fit"));
        let long = rows(&[["Deployment/web", "5m", &"x".repeat(200)]]);
        assert!(!table_shrinking(&header, long, None, 2).contains("cut to fit"));
    }

    #[test]
    fn a_cut_never_splits_an_escape() {
        assert_eq!(truncate("ab\\u{feff}cdef", 6), "ab…");
        assert_eq!(truncate("ab\\u{feff}cdef", 11), "ab\\u{feff}…");
        assert_eq!(truncate("a\\x1b[31mred", 4), "a…");
        assert_eq!(truncate("a\\x1b[31mred", 6), "a\\x1b…");
        assert_eq!(truncate("日本語のテキスト", 7), "日本語…");
        let long = "x".repeat(100_000);
        assert_eq!(truncate(&long, 10), format!("{}…", "x".repeat(9)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_never_exceeds_the_width_even_when_messages_are_gone() {
        let rows = vec![vec![
            Cell::plain("Pod/a-very-long-name-that-alone-is-wider-than-the-terminal"),
            Cell::plain("Failed"),
            Cell::plain("the message"),
            Cell::plain("app=web,tier=frontend,team=checkout"),
        ]];
        let out = table_shrinking(&["NAME", "VERDICT", "MESSAGE", "LABELS"], rows, Some(40), 2);
        for line in out.lines() {
            assert!(line.width() <= 40, "{line:?} is {} wide", line.width());
        }
        assert!(out.lines().nth(1).unwrap().ends_with('…'), "{out}");
    }

    #[test]
    fn columns_align_and_the_last_is_cut_to_width() {
        let rows = vec![
            vec![
                Cell::plain("Deployment/web"),
                Cell::plain("Failed"),
                Cell::plain("a long message that will not fit in the room left"),
            ],
            vec![
                Cell::plain("└─Pod/x"),
                Cell::painted("Converged", |s| format!("<{s}>")),
                Cell::plain(""),
            ],
        ];
        let out = table(&["NAME", "VERDICT", "MESSAGE"], rows, Some(50));
        assert_eq!(
            out,
            "NAME            VERDICT    MESSAGE\n\
             Deployment/web  Failed     a long message that wi…\n\
             └─Pod/x         <Converged>\n\
             (MESSAGE cut to fit the terminal; -o wide shows it\n \
             whole)\n"
        );
    }

    #[test]
    fn a_row_never_exceeds_the_width_the_message_goes_first() {
        let rows = vec![vec![
            Cell::plain("Deployment/checkout-api"),
            Cell::plain("Progressing"),
            Cell::plain("0/3 replicas available: Pod checkout-api-7d9f-x2x4z ImagePullBackOff"),
        ]];
        for width in [80, 40, 37, 36] {
            let out = table(
                &["NAME", "VERDICT", "MESSAGE"],
                rows_like(&rows),
                Some(width),
            );
            for line in out.lines() {
                assert!(
                    line.width() <= width,
                    "{width}: {line:?} is {} wide",
                    line.width()
                );
            }
        }
        let narrow = table(&["NAME", "VERDICT", "MESSAGE"], rows_like(&rows), Some(36));
        assert!(
            narrow.lines().nth(1).unwrap().ends_with("Progressing"),
            "{narrow}"
        );
    }

    fn rows_like(rows: &[Vec<Cell>]) -> Vec<Vec<Cell>> {
        rows.iter()
            .map(|r| r.iter().map(|c| Cell::plain(c.text.clone())).collect())
            .collect()
    }

    #[test]
    fn prose_wraps_at_the_width_with_a_hanging_indent() {
        let text = "The container keeps exiting and is restarted with back-off: read the logs of the last run";
        assert_eq!(
            wrap(text, Some(40), "  ", "    "),
            "  The container keeps exiting and is\n    restarted with back-off: read the\n    logs of the last run\n"
        );
        for line in wrap(text, Some(40), "  ", "    ").lines() {
            assert!(line.width() <= 40, "{line}");
        }
        assert_eq!(wrap(text, None, "  ", "    "), format!("  {text}\n"));
    }

    #[test]
    fn nothing_is_cut_off_a_terminal() {
        let long = "x".repeat(300);
        let out = table(
            &["A", "B"],
            vec![vec![Cell::plain("a"), Cell::plain(long.clone())]],
            None,
        );
        assert!(out.contains(&long));
    }
}
