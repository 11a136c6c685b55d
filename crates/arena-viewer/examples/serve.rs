//! Serves directories until interrupted, the way `arena serve` does:
//! `cargo run -p arena-viewer --example serve -- [--port P] DIR...` (files ending in .json/.json.gz are
//! served as single replays).

fn main() {
    let mut options = arena_viewer::ServeOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--port" {
            options.port = args.next().and_then(|p| p.parse().ok()).expect("--port N");
        } else if arg.ends_with(".json") || arg.ends_with(".json.gz") {
            options.files.push(arg.into());
        } else {
            options.dirs.push(arg.into());
        }
    }
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let result = runtime.block_on(arena_viewer::serve(options, |server| {
        println!("serving on {}", server.url());
        if let Some(url) = server.file_url(0) {
            println!("replay: {url}");
        }
    }));
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
