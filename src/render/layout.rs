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
    let cols = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.width()).collect();
    for row in &rows {
        for (i, cell) in row.iter().enumerate().take(cols - 1) {
            widths[i] = widths[i].max(cell.text.width());
        }
    }
    let fixed: usize = widths[..cols - 1].iter().map(|w| w + GAP).sum();
    let last_room = width.map(|w| w.saturating_sub(fixed));
    let mut out = String::new();
    let header_cells: Vec<Cell> = header.iter().map(|h| Cell::plain(*h)).collect();
    for row in std::iter::once(header_cells).chain(rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i == cols - 1 {
                let text = match last_room {
                    Some(room) => truncate(&cell.text, room),
                    None => cell.text.clone(),
                };
                line.push_str(&(cell.paint)(&text));
            } else {
                line.push_str(&(cell.paint)(&cell.text));
                line.push_str(&" ".repeat(widths[i] - cell.text.width() + GAP));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
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
    for c in text.chars() {
        if out.width() + c.to_string().width() + 1 > room {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
             └─Pod/x         <Converged>\n"
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
