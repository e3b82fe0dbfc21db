import { uploadSessionsSuite } from './upload-sessions-suite.js';

uploadSessionsSuite('embedded');
