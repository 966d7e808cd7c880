//! Prints the hook event list (`core/events/schema/hook-events.json`), from which
//! `scripts/gen_types.py` generates the host packages' hook types.

fn main() {
    let list = dcl_events::HookEventName::export();
    match serde_json::to_string_pretty(&list) {
        Ok(text) => println!("{text}"),
        Err(e) => {
            eprintln!("export-hook-events: {e}");
            std::process::exit(1);
        }
    }
}
