fn main() {
    std::process::exit(droidscore_device::cli::main());
}
