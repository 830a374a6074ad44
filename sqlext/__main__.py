from sqlext.cli import main

raise SystemExit(main())
