import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { buildDataSourceOptions } from './data-source-options';

/** The one PostgreSQL connection pool of a process; entities register themselves per module. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...buildDataSourceOptions({ url: config.databaseUrl, poolSize: config.databasePoolSize }),
        autoLoadEntities: true,
      }),
    }),
  ],
})
export class DatabaseModule {}
