//! Every stdin line goes through `parse_line`; whatever the bytes, it must return an
//! error or a message — never panic — and a parsed message must serialize again.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(message) = dcl_protocol::parse_line(line) {
        let again = dcl_protocol::to_line(&message);
        // What dcl writes it must also be able to read.
        assert!(dcl_protocol::parse_line(&again).is_ok(), "re-parse failed: {again}");
        if let dcl_protocol::Message::ControlRequest(req) = &message {
            let _ = dcl_protocol::HostRequest::parse(&req.request);
        }
    }
});
