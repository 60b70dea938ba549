import { runGatesAction } from './gates-main.js'

await runGatesAction()
