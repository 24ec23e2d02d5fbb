#[test]
fn probe() {
    let text = std::fs::read_to_string("/tmp/attack/sy_shrink.json").unwrap();
    let mut sc = flush_core::AnyScenario::parse(&text, "x").unwrap();
    sc.set_version("b5c9a7364b").unwrap();
    let t = std::time::Instant::now();
    let mut run = sc.run(flush_core::Policy::Seeded(sc.header().seed));
    run.run_to_end();
    eprintln!("run {:?} len {}", t.elapsed(), run.len());
    let t = std::time::Instant::now();
    let f = run.figures();
    eprintln!("figures {:?} {}", t.elapsed(), f.len);
    let t = std::time::Instant::now();
    run.goto(0);
    eprintln!("goto0 {:?}", t.elapsed());
}
