//! The files the page asks for besides the API: the icon at `/favicon.svg` and at
//! `/favicon.ico` (where browsers look by default: no 404 in the log), named by the
//! page's head.

mod common;

use common::{http::read_head, server, TempDb};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// GETs `path` on a fresh connection: the status, the headers and the body.
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, Vec<(String, String)>, String) {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let mut conn = BufReader::new(stream);
    let request = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
    conn.get_mut().write_all(request.as_bytes()).await.expect("write");
    let (status, headers) = read_head(&mut conn).await.expect("a response head");
    let mut body = String::new();
    conn.read_to_string(&mut body).await.expect("the body");
    (status, headers, body)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_icon_is_an_svg_at_both_addresses_and_the_page_names_it() {
    let db = TempDb::new("static");
    let server = server(&db).await;
    let mut icons = Vec::new();
    for path in ["/favicon.svg", "/favicon.ico"] {
        let (status, headers, body) = get(server.addr, path).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(header(&headers, "content-type"), Some("image/svg+xml"), "{path}");
        assert!(body.starts_with("<svg ") && body.trim_end().ends_with("</svg>"), "{path}: {body}");
        // Drawn in paths and shapes: no text a font would have to draw.
        assert!(!body.contains("<text"), "{path}: {body}");
        icons.push(body);
    }
    assert_eq!(icons[0], icons[1]);

    let (status, _, page) = get(server.addr, "/").await;
    assert_eq!(status, 200);
    let head = &page[..page.find("</head>").expect("a head")];
    assert!(head.contains(r#"<link rel="icon" href="/favicon.svg" type="image/svg+xml">"#), "{head}");
    // The page of a game is the same page.
    let (_, _, play) = get(server.addr, "/play/nope").await;
    assert_eq!(play, page);
}
