fn main() {
    std::process::exit(cqlrs::cli::main());
}
