from sqlext.tools.cli import main

raise SystemExit(main())
