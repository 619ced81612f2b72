"""What people see and type: page overlays (`render/`), figures (`plots`), HTML reports (`report`), the
notebook explorer (`explorer/`), the review app (`reviews/`), the command line (`cli/`) and `make demo`
(`demo`)."""
